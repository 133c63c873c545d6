package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// A store that errors or outlasts the budget gets the tenant's fail mode: open allows
// (flagged), closed denies with a short retry; nothing is returned as an error.
func TestFailModes(t *testing.T) {
	faults := []struct {
		name string
		fail func(ctx context.Context) error
	}{
		{"error", func(context.Context) error { return errDown }},
		{"hangs past the budget", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
	}
	for _, fault := range faults {
		t.Run(fault.name, func(t *testing.T) {
			f := newFixture(t, func(c *gate.Config) { c.LatencyBudget = 20 * time.Millisecond })
			f.createTenant(t, `{"id": "openco", "fail_mode": "open", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 5, "period": "1m"}]}`)
			openKey, _ := f.addKey(t, "openco")
			f.counters.setFail(fault.fail)

			closed := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key})
			if closed.Status != gate.Denied || !closed.FailedClosed || closed.Decision.RetryAfter != sec {
				t.Errorf("fail closed: %+v", closed)
			}
			if closed.RetryAfterSeconds() != 1 {
				t.Errorf("fail closed: retry after %d s, want 1", closed.RetryAfterSeconds())
			}
			open := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: openKey})
			if open.Status != gate.Allowed || !open.FailOpen || open.Decision.Remaining != 0 {
				t.Errorf("fail open: %+v", open)
			}
			// Nothing was counted: no rule, limit, remaining or set is reported as if a
			// limit had decided (before, rule "minute" and its limit 5 were).
			for _, r := range []gate.Result{closed, open} {
				if r.Set != nil || r.Rule != "" || r.Decision.Rule != -1 || r.Decision.Limit != 0 || r.Decision.Remaining != 0 {
					t.Errorf("the fail mode's answer reports a count: %+v", r)
				}
			}

			f.counters.setFail(nil)
			again := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key})
			if again.Status != gate.Allowed || again.FailOpen || again.Cached {
				t.Errorf("store back: %+v, want allowed (fail-closed answers are not cached)", again)
			}
		})
	}
}

// The budget bounds the whole Check, in real time, however long the store would hang.
func TestBudgetBoundsAHungStore(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.LatencyBudget = 50 * time.Millisecond })
	f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key}) // config cached
	f.counters.setFail(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	start := time.Now()
	res := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: f.key})
	elapsed := time.Since(start)
	if res.Status != gate.Denied || !res.FailedClosed {
		t.Fatalf("%+v, want failed closed", res)
	}
	if elapsed < 50*time.Millisecond || elapsed > 2*time.Second {
		t.Fatalf("answered after %v, want about the 50ms budget", elapsed)
	}
}

// When the key lookup itself fails (no cached entry), the gate's default fail mode
// answers, without a tenant.
func TestDefaultFailModeBeforeTheTenantIsKnown(t *testing.T) {
	for _, mode := range []string{"open", "closed"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, nil)
			ft := &failingTenants{Tenants: f.tenants}
			ft.failing.Store(true)
			g, err := gate.New(gate.Config{Tenants: ft, Counters: f.counters, Now: f.clock.Now, FailMode: failMode(mode)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := g.Check(context.Background(), gate.Request{APIKey: f.key})
			if err != nil {
				t.Fatal(err)
			}
			wantStatus := map[string]gate.Status{"open": gate.Allowed, "closed": gate.Denied}[mode]
			if res.Status != wantStatus || res.FailOpen != (mode == "open") || res.TenantID != "" || res.Set != nil {
				t.Fatalf("%+v", res)
			}
		})
	}
}
