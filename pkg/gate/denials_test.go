package gate_test

import (
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// Once a key is denied, its requests of no smaller cost are denied from memory with 0
// store calls until the retry time, which each answer recomputes; then the store
// decides again.
func TestDenialCacheMakesNoStoreCalls(t *testing.T) {
	f := newFixture(t, nil)
	req := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	for range 5 {
		f.check(t, req)
	}
	denied := f.check(t, req) // the 6th of 5 a minute, at t0: retry at t0+60s
	if denied.Status != gate.Denied || denied.Cached || denied.StoreCalls != 1 {
		t.Fatalf("6th: %+v, want a store denial", denied)
	}
	if got := denied.Decision.RetryAfter; got != 60*sec {
		t.Fatalf("retry after %d µs, want 60 s", got)
	}
	before := f.counters.calls.Load()
	steps := []struct {
		name       string
		advance    int64
		cost       int64
		wantCached bool
		wantRetry  int64
	}{
		{"same instant", 0, 1, true, 60 * sec},
		{"20 s later, retry recomputed", 20 * sec, 1, true, 40 * sec},
		{"greater cost", 0, 3, true, 40 * sec},
		{"just before the retry time", 40*sec - 1, 1, true, 1},
	}
	for _, s := range steps {
		f.clock.add(s.advance)
		res := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key, Cost: s.cost})
		if res.Status != gate.Denied || res.Cached != s.wantCached || res.StoreCalls != 0 || res.Decision.RetryAfter != s.wantRetry || res.Decision.Remaining != 0 {
			t.Errorf("%s: %v cached %v calls %d retry %d remaining %d, want denied from the cache with retry %d",
				s.name, res.Status, res.Cached, res.StoreCalls, res.Decision.RetryAfter, res.Decision.Remaining, s.wantRetry)
		}
	}
	if n := f.counters.calls.Load() - before; n != 0 {
		t.Fatalf("%d store calls while the denial was cached, want 0", n)
	}
	f.clock.add(1)
	if res := f.check(t, req); res.Status != gate.Allowed || res.Cached || res.StoreCalls != 1 {
		t.Fatalf("at the retry time: %+v, want allowed by the store", res)
	}
}

// A denial of a large cost says nothing about a smaller one: that goes to the store.
func TestDenialCacheAsksTheStoreForSmallerCosts(t *testing.T) {
	f := newFixture(t, nil)
	f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key, Cost: 3}) // 2 left
	big := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key, Cost: 3})
	if big.Status != gate.Denied || big.Decision.Remaining != 2 {
		t.Fatalf("cost 3: %+v, want denied with 2 remaining", big)
	}
	small := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key, Cost: 2})
	if small.Status != gate.Allowed || small.Cached || small.StoreCalls != 1 {
		t.Fatalf("cost 2: %+v, want allowed by the store", small)
	}
}

// A denial by one of two windows says nothing of a larger cost's retry: the other window
// admitted the denied cost but may not admit the larger one before its own end. The
// store answers it, with the hour's retry, not the minute's.
func TestDenialCacheAsksTheStoreForALargerCostUnderTwoWindows(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "twowin", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 3, "period": "1m"},
		{"name": "hour", "algorithm": "fixed_window", "limit": 5, "period": "1h"}]}`)
	key, _ := f.addKey(t, "twowin")
	one := gate.Request{Method: "GET", Resource: "/", APIKey: key}
	for i := range 3 {
		if res := f.check(t, one); res.Status != gate.Allowed {
			t.Fatalf("request %d: %v", i+1, res.Status)
		}
	}
	if res := f.check(t, one); res.Status != gate.Denied || res.Rule != "minute" {
		t.Fatalf("the 4th request: %v by %q, want denied by the minute", res.Status, res.Rule)
	}
	big := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: key, Cost: 3})
	if big.Status != gate.Denied || big.Cached || big.Rule != "hour" || big.Decision.RetryAfter <= 60*sec {
		t.Errorf("cost 3: %v by %q, cached %v, retry %v; want the store's denial by the hour, retry over a minute",
			big.Status, big.Rule, big.Cached, time.Duration(big.Decision.RetryAfter)*time.Microsecond)
	}
}

// A tenant-wide denial known from the cache does not consume the route's quota.
func TestDenialCacheIsCheckedBeforeAnyStoreCall(t *testing.T) {
	f := newFixture(t, nil)
	other := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	for range 6 {
		f.check(t, other) // the 6th denies tenant-wide
	}
	before := f.counters.calls.Load()
	res := f.check(t, gate.Request{Method: "POST", Resource: "/orders", APIKey: f.key})
	if res.Status != gate.Denied || !res.Cached || res.Rule != "minute" {
		t.Fatalf("%+v, want the tenant-wide denial from the cache", res)
	}
	if n := f.counters.calls.Load() - before; n != 0 {
		t.Fatalf("%d store calls, want 0", n)
	}
}

func TestDenialCacheIsBounded(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.MaxEntries = 4 })
	for range 20 {
		key, _ := f.addKey(t, "acme")
		req := gate.Request{Method: "POST", Resource: "/orders", APIKey: key, Cost: 2}
		f.check(t, req)
		if res := f.check(t, req); res.Status != gate.Denied {
			t.Fatalf("%v, want denied", res.Status)
		}
	}
	if n := gate.CachedDenials(f.g); n > 4 {
		t.Fatalf("%d cached denials, want at most 4", n)
	}
}

// A tenant-scope denial reached through one key answers every key of the tenant from
// memory, with 0 store calls, until its retry time; another tenant is unaffected, and a
// key-scope denial stays the key's.
func TestTenantDenialCoversEveryKey(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "org", "rules": [
	  {"name": "org-daily", "algorithm": "fixed_window", "limit": 3, "period": "day"},
	  {"name": "per-key", "algorithm": "fixed_window", "limit": 2, "period": "1m", "scope": "key"}]}`)
	first, _ := f.addKey(t, "org")
	second, _ := f.addKey(t, "org")
	third, _ := f.addKey(t, "org")
	check := func(key string) gate.Result {
		return f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: key})
	}
	check(first)
	check(first)
	if res := check(first); res.Status != gate.Denied || res.Rule != "per-key" {
		t.Fatalf("the first key's 3rd request: %+v, want its key-scope denial", res)
	}
	if res := check(second); res.Status != gate.Allowed || res.Cached {
		t.Fatalf("another key of the tenant after a key-scope denial: %+v, want allowed by the store", res)
	}
	if res := check(third); res.Status != gate.Denied || res.Rule != "org-daily" || res.Cached || res.StoreCalls != 1 {
		t.Fatalf("the tenant's 4th request: %+v, want the tenant-scope denial from the store", res)
	}
	before := f.counters.calls.Load()
	if res := check(second); res.Status != gate.Denied || !res.Cached || res.StoreCalls != 0 || res.Rule != "org-daily" {
		t.Fatalf("a second key after the tenant's denial: %+v, want denied from the cache", res)
	}
	if n := f.counters.calls.Load() - before; n != 0 {
		t.Fatalf("%d store calls for the second key, want 0", n)
	}
	if res := check(f.key); res.Status != gate.Allowed || res.TenantID != "acme" {
		t.Fatalf("another tenant: %+v, want allowed", res)
	}
}

// TestALargerCostThanADeniedOneIsAllowedAtItsRetryAfter: a denial's RetryAfter is "how
// long until a request of the same cost would first be allowed" (pkg/limiter,
// Decision.RetryAfter), so a client that retries at Retry-After, with no other
// traffic, is allowed. Two routes of one tenant share its token bucket (10 a minute:
// a token every 6 s), at costs 1 and 5. Once the bucket is empty, a cost-1 request is
// denied for 6 s; a cost-5 request then needs 30 s of refill, which the cost-1 denial
// does not know: the store answers it, and retried at its RetryAfter it is allowed.
// (A denial answers larger costs from memory only for a counter of one fixed window,
// whose next window admits any cost: TestDenialCacheMakesNoStoreCalls.)
func TestALargerCostThanADeniedOneIsAllowedAtItsRetryAfter(t *testing.T) {
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
