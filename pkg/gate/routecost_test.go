package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestRouteCost: a request of a route with a cost counts that cost unless the trusted
// caller set one; off any route a request counts 1.
func TestRouteCost(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "llm", "rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 10000, "period": "1m"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 5000, "period": "1m"}]}]}`)
	key, _ := f.addKey(t, "llm")
	steps := []struct {
		name          string
		req           gate.Request
		wantRemaining int64 // of the reported rule
		wantAllowed   bool
	}{
		{"route cost", gate.Request{APIKey: key, Method: "POST", Resource: "/chat"}, 4000, true},
		{"caller's cost", gate.Request{APIKey: key, Method: "POST", Resource: "/chat", Cost: 3000}, 1000, true},
		{"route cost, the last that fits", gate.Request{APIKey: key, Method: "POST", Resource: "/chat"}, 0, true},
		{"route cost over what is left", gate.Request{APIKey: key, Method: "POST", Resource: "/chat", Cost: 0}, 0, false},
		{"off any route", gate.Request{APIKey: key, Method: "GET", Resource: "/models"}, 4999, true},
	}
	for _, s := range steps {
		res := f.check(t, s.req)
		if res.Decision.Allowed != s.wantAllowed || res.Decision.Remaining != s.wantRemaining {
			t.Errorf("%s: allowed %v remaining %d (rule %q), want %v %d", s.name, res.Decision.Allowed, res.Decision.Remaining, res.Rule, s.wantAllowed, s.wantRemaining)
		}
	}
}

// TestPlanLoweredBelowARouteCostMeetsTheFailMode: a plan's change is not checked
// against the tenants on it, and "a merge that no longer compiles ... meets the
// tenant's fail mode at the authorizer" (docs/design.md, "Tenants, keys and the admin
// API"). A plan lowered below the cost of a tenant's route is such a merge: the
// requests of that route get the tenant's fail mode (here closed: denied,
// FailedClosed), as a decision with a log line and metrics, not a *limiter.CostError
// (which the authorizer's invocation fails with, and API Gateway answers 500).
func TestPlanLoweredBelowARouteCostMeetsTheFailMode(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	plan, err := f.tenants.CreatePlan(ctx, tenant.Plan{ID: "tokens", Rules: []limiter.Rule{{Name: "tpm", Algorithm: limiter.FixedWindow, Limit: 100, Period: limiter.Every(time.Minute)}}})
	if err != nil {
		t.Fatal(err)
	}
	f.createTenant(t, `{"id": "chatco", "plan": "tokens",
		"routes": [{"method": "POST", "resource": "/chat", "cost": 5, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 50, "period": "1m"}]}]}`)
	key, _ := f.addKey(t, "chatco")
	req := gate.Request{APIKey: key, Method: "POST", Resource: "/chat"}
	if res := f.check(t, req); res.Status != gate.Allowed {
		t.Fatalf("before the plan's change: %v (%s)", res.Status, res.Reason)
	}
	plan.Rules[0].Limit = 3
	if _, err := f.tenants.ReplacePlan(ctx, plan, plan.Version); err != nil {
		t.Fatal(err)
	}
	f.clock.add(gate.DefaultConfigTTL.Microseconds())
	res, err := f.g.Check(ctx, req)
	if err != nil || res.Status != gate.Denied || !res.FailedClosed {
		t.Errorf("after the plan's tpm fell to 3 under the route's cost of 5: %v, FailedClosed %v, error %v; want the fail mode's denial and no error",
			res.Status, res.FailedClosed, err)
	}
}
