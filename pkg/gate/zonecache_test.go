package gate_test

import (
	"context"
	"testing"
	"time"

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
