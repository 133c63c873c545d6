package gate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// TestProbeZoneChangeBeforeMidnightReachesAKeysOwnDailyRule is
// TestZoneChangeBeforeMidnightReachesTheCache for a daily quota that a key holds as a
// rule of its own, under a tenant whose rules have no calendar window. The promise
// (docs/contracts.md, "The authorizer and the gate": "a cached tenant is also
// reloaded at the end of its current calendar windows, so a zone change made just
// before a local midnight cannot let the old zone open a new day") holds for the
// tenant's rules only: the key's day opens at UTC midnight from the cached tenant, a
// second quota. Found by the red-team review.
func TestProbeZoneChangeBeforeMidnightReachesAKeysOwnDailyRule(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.ConfigTTL = time.Minute })
	ctx := context.Background()
	created := f.createTenant(t, `{"id": "tzkey", "timezone": "UTC", "rules": [
		{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s"}]}`)
	k, rec := apikey.Generate("tzkey", t0)
	if err := json.Unmarshal([]byte(`[{"name": "daily", "algorithm": "fixed_window", "limit": 1, "period": "day", "scope": "key"}]`), &rec.Rules); err != nil {
		t.Fatal(err)
	}
	if err := f.tenants.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	req := gate.Request{Method: "GET", Resource: "/x", APIKey: k.Reveal()}
	if res := spendThenMoveToNewYork(t, f, created, req); res.Status != gate.Denied {
		t.Fatalf("after midnight UTC, within the cache time: %v (rule %q); want denied by the key's daily until New York's midnight", res.Status, res.Rule)
	}
}

// TestProbeRetryAfterOfALargerCostFromTheDenialCache: a denial's RetryAfter is "how
// long until a request of the same cost would first be allowed" (pkg/limiter,
// Decision.RetryAfter), so a client that retries at Retry-After, with no other
// traffic, is allowed. Two routes of one tenant share its token bucket (10 a minute:
// a token every 6 s), at costs 1 and 5. Once the bucket is empty, a cost-1 request is
// denied for 6 s, and the denial cache then answers a cost-5 request (cost at least
// the denied one) with what is left of those 6 s; retried then, it is denied again
// (it needs 30 s of refill). Found by the red-team review: the cache keeps the denied
// cost's retry instant and gives it to every larger cost.
func TestProbeRetryAfterOfALargerCostFromTheDenialCache(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "mixed", "rules": [{"name": "bucket", "algorithm": "token_bucket", "limit": 10, "period": "1m"}],
		"routes": [{"method": "GET", "resource": "/small", "rules": [{"name": "small", "algorithm": "fixed_window", "limit": 1000, "period": "1h"}]},
		           {"method": "POST", "resource": "/big", "cost": 5, "rules": [{"name": "big", "algorithm": "fixed_window", "limit": 1000, "period": "1h"}]}]}`)
	key, _ := f.addKey(t, "mixed")
	small := gate.Request{APIKey: key, Method: "GET", Resource: "/small"}
	big := gate.Request{APIKey: key, Method: "POST", Resource: "/big"}
	for i := range 2 {
		if res := f.check(t, big); res.Status != gate.Allowed {
			t.Fatalf("big request %d: %v", i+1, res.Status)
		}
	}
	if res := f.check(t, small); res.Status != gate.Denied {
		t.Fatalf("a cost-1 request on the empty bucket: %v", res.Status)
	}
	f.clock.add(sec)
	res := f.check(t, big)
	if res.Status != gate.Denied {
		t.Fatalf("a cost-5 request 1 s later: %v", res.Status)
	}
	f.clock.add(res.Decision.RetryAfter)
	if again := f.check(t, big); again.Status != gate.Allowed {
		t.Errorf("the cost-5 request retried at its RetryAfter (%v, cached %v): %v (RetryAfter now %v); want allowed",
			time.Duration(res.Decision.RetryAfter)*time.Microsecond, res.Cached, again.Status, time.Duration(again.Decision.RetryAfter)*time.Microsecond)
	}
}
