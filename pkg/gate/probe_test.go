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
