package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestSettleOnAPlan: a reservation of a tenant on a plan settles while the plan is
// as it was, and refunds nothing once the plan changed (its rules, and so its
// counters, may not be the reservation's); a key with rules of its own settles on
// those rules.
func TestSettleOnAPlan(t *testing.T) {
	f := newFixture(t, withSecret)
	ctx := context.Background()
	tokens := limiter.Rule{Name: "tokens", Algorithm: limiter.FixedWindow, Limit: 10_000, Period: limiter.Every(time.Minute)}
	if _, err := f.tenants.CreatePlan(ctx, tenant.Plan{ID: "pro", Rules: []limiter.Rule{tokens}}); err != nil {
		t.Fatal(err)
	}
	f.createTenant(t, `{"id": "onplan", "plan": "pro"}`)
	plain, _ := f.addKey(t, "onplan")
	own, rec := apikey.Generate("onplan", t0)
	rec.Rules = []limiter.Rule{{Name: "mine", Algorithm: limiter.FixedWindow, Limit: 500, Period: limiter.Every(time.Minute), Scope: limiter.ScopeKey}}
	if err := f.tenants.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	req := func(key string) gate.Request {
		return gate.Request{APIKey: key, Method: "POST", Resource: "/", Cost: 100}
	}
	for _, key := range []string{plain, own.Reveal()} {
		res := f.check(t, req(key))
		if r := settle(t, f.g, res.Reservation.ID, 40); r.Status != gate.SettleSettled {
			t.Fatalf("settle on the plan: %+v", r)
		}
		if left := remaining(t, f, res); left != 10_000-40 && left != 500-40 {
			t.Fatalf("after settling 40 of 100: %d left", left)
		}
		for _, c := range res.Checks {
			f.counters.Reset(ctx, c.Key)
		}
	}
	res := f.check(t, req(plain))
	p, err := f.tenants.GetPlan(ctx, "pro")
	if err != nil {
		t.Fatal(err)
	}
	p.Rules = append(p.Rules, limiter.Rule{Name: "burst", Algorithm: limiter.TokenBucket, Limit: 50, Period: limiter.Every(time.Second), Burst: 200})
	if _, err := f.tenants.ReplacePlan(ctx, p, p.Version); err != nil {
		t.Fatal(err)
	}
	f.clock.add(gate.DefaultConfigTTL.Microseconds() + 1)
	if r := settle(t, f.g, res.Reservation.ID, 0); r.Status != gate.SettleRulesChanged {
		t.Fatalf("settle after the plan changed: %+v, want rules_changed", r)
	}
}

// remaining peeks at the least remaining of res's checks.
func remaining(t *testing.T, f *fixture, res gate.Result) int64 {
	t.Helper()
	least := int64(-1)
	for _, c := range res.Checks {
		d, err := f.counters.Peek(context.Background(), c.Key, c.Set, f.clock.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if least < 0 || d.Remaining < least {
			least = d.Remaining
		}
	}
	return least
}
