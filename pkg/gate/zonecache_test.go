package gate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestZoneChangeBeforeMidnightReachesTheCache: a tenant is cached at 23:59:30 UTC with
// a daily quota of 1, spent; at 23:59:45 its zone changes to New York, which extends
// the day to New York's midnight (04:00 UTC). A request at 00:00:05, still within the
// cache time of 60 s, must be denied: the cached tenant expires at the end of its
// calendar windows, so the old zone cannot open a new day (a second quota).
func TestZoneChangeBeforeMidnightReachesTheCache(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.ConfigTTL = time.Minute })
	created := f.createTenant(t, `{"id": "tz", "timezone": "UTC", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 1, "period": "day"}]}`)
	key, _ := f.addKey(t, "tz")
	res := spendThenMoveToNewYork(t, f, created, gate.Request{Method: "GET", Resource: "/x", APIKey: key})
	if res.Status != gate.Denied {
		t.Fatalf("after midnight UTC, within the cache time: %v; want denied until New York's midnight", res.Status)
	}
	if want := zoneTestAt(4, 0, 0, 2); f.clock.Now()+res.Decision.RetryAfter != want {
		t.Fatalf("retry at %v, want %v", limiter.Time(f.clock.Now()+res.Decision.RetryAfter), limiter.Time(want))
	}
}

// zoneTestAt is h:m:s UTC on 2026-06-day.
func zoneTestAt(h, m, s int, day int) int64 {
	return limiter.Micros(time.Date(2026, 6, day, h, m, s, 0, time.UTC))
}

// spendThenMoveToNewYork checks req at 23:59:30 UTC on June 1 (it must be allowed),
// moves created (in UTC) to America/New_York at 23:59:45, and returns req's check at
// 00:00:05 on June 2.
func spendThenMoveToNewYork(t *testing.T, f *fixture, created tenant.Tenant, req gate.Request) gate.Result {
	t.Helper()
	f.clock.now.Store(zoneTestAt(23, 59, 30, 1))
	if res := f.check(t, req); res.Status != gate.Allowed {
		t.Fatalf("first request: %v (%s)", res.Status, res.Reason)
	}
	f.clock.now.Store(zoneTestAt(23, 59, 45, 1))
	next := created
	next.Timezone = "America/New_York"
	updated, err := tenant.ApplyUpdate(created, next, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.tenants.Replace(context.Background(), updated, created.Version); err != nil {
		t.Fatal(err)
	}
	f.clock.now.Store(zoneTestAt(0, 0, 5, 2))
	return f.check(t, req)
}

// TestZoneChangeBeforeMidnightReachesAKeysOwnDailyRule is
// TestZoneChangeBeforeMidnightReachesTheCache for a daily quota that a key holds as a
// rule of its own, under a tenant whose rules have no calendar window. The promise
// (docs/contracts.md, "The authorizer and the gate": "a cached tenant is also
// reloaded at the end of its current calendar windows, so a zone change made just
// before a local midnight cannot let the old zone open a new day") holds for the
// key's own rules too: the cached tenant is loaded again at the end of the key's day,
// and the key's day runs on to New York's midnight.
func TestZoneChangeBeforeMidnightReachesAKeysOwnDailyRule(t *testing.T) {
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
	res := spendThenMoveToNewYork(t, f, created, req)
	if res.Status != gate.Denied {
		t.Fatalf("after midnight UTC, within the cache time: %v (rule %q); want denied by the key's daily until New York's midnight", res.Status, res.Rule)
	}
	if want := zoneTestAt(4, 0, 0, 2); f.clock.Now()+res.Decision.RetryAfter != want || res.Rule != "daily" {
		t.Fatalf("retry at %v by %q, want %v by the key's daily", limiter.Time(f.clock.Now()+res.Decision.RetryAfter), res.Rule, limiter.Time(want))
	}
}

// TestKeysDayEndWhileTheTenantStoreFails: at the end of a key's own daily window the
// gate loads the key's tenant again; when the tenant store fails then, the last known
// tenant answers (the key's new day, not the fail mode), after one store call per
// request, as at the end of the tenant's own windows.
func TestKeysDayEndWhileTheTenantStoreFails(t *testing.T) {
	f := newFixture(t, nil)
	ft := &failingTenants{Tenants: f.tenants}
	g, err := gate.New(gate.Config{Tenants: ft, Counters: f.counters, Now: f.clock.Now,
		ConfigTTL: time.Minute, MaxStale: time.Minute, FailMode: tenant.FailClosed})
	if err != nil {
		t.Fatal(err)
	}
	f.createTenant(t, `{"id": "daykey", "rules": [{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s"}]}`)
	k, rec := apikey.Generate("daykey", t0)
	rec.Rules = []limiter.Rule{{Name: "daily", Algorithm: limiter.FixedWindow, Limit: 2, Period: limiter.Calendar(limiter.Day), Scope: limiter.ScopeKey}}
	if err := f.tenants.PutKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	req := gate.Request{Method: "GET", Resource: "/x", APIKey: k.Reveal()}
	f.clock.now.Store(zoneTestAt(23, 59, 50, 1))
	if res, err := g.Check(context.Background(), req); err != nil || res.Status != gate.Allowed {
		t.Fatalf("the day's request: %v, %v", res.Status, err)
	}
	ft.failing.Store(true)
	f.clock.now.Store(zoneTestAt(0, 0, 5, 2))
	for i := range 2 {
		before := ft.calls.Load()
		res, err := g.Check(context.Background(), req)
		if err != nil || res.Status != gate.Allowed || res.FailedClosed || res.Rule != "daily" {
			t.Fatalf("request %d of the next day, the store down: %v (rule %q, failed closed %v), %v; want allowed by the last known rules",
				i+1, res.Status, res.Rule, res.FailedClosed, err)
		}
		if n := ft.calls.Load() - before; n != 1 {
			t.Errorf("request %d: %d tenant store calls, want 1 (the reload)", i+1, n)
		}
	}
}
