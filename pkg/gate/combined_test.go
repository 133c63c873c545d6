package gate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestAnonymousUnderKeyAndIPRules pins the bug where an anonymous request under
// tenant-wide key and ip rules had its address's counter key twice in one decision:
// the store refused it, and the fail mode answered every request (fail_mode open
// admitted 6 of 6 against an ip limit of 2). Each scope now has a counter of its own,
// so exactly 2 of 6 pass and no answer comes from the fail mode, on every backend.
func TestAnonymousUnderKeyAndIPRules(t *testing.T) {
	for _, b := range counterBackends {
		t.Run(b.name, func(t *testing.T) {
			counters := b.open(t)
			id := uniqueID(t, "public")
			tenants := memory.NewTenants()
			js := fmt.Sprintf(`{"id": %q, "fail_mode": "open",
			  "rules": [{"name": "per-key", "algorithm": "token_bucket", "limit": 10, "period": "1m", "scope": "key"},
			            {"name": "per-ip", "algorithm": "token_bucket", "limit": 2, "period": "1m", "scope": "ip"}],
			  "routes": [{"method": "GET", "resource": "/health", "anonymous": true,
			              "rules": [{"name": "health", "algorithm": "sliding_window", "limit": 100, "period": "1m"}]}]}`, id)
			tn, err := tenant.Decode([]byte(js))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tenants.Create(context.Background(), tenant.ApplyCreate(tn)); err != nil {
				t.Fatal(err)
			}
			g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, AnonymousTenant: id})
			if err != nil {
				t.Fatal(err)
			}
			allowed := 0
			for i := range 6 {
				res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/health", SourceIP: "198.51.100.7"})
				if err != nil {
					t.Fatal(err)
				}
				if res.FailOpen || res.FailedClosed {
					t.Fatalf("request %d answered by the fail mode: %s", i+1, res.Reason)
				}
				if res.Status == gate.Allowed {
					allowed++
				}
			}
			if allowed != 2 {
				t.Errorf("%d of 6 anonymous requests allowed against an ip limit of 2", allowed)
			}
		})
	}
}

// TestRecreatedTenantStartsAfresh pins the bug where a tenant deleted and created
// again kept its old counters (its new key's first request was denied) and, in a gate
// that had cached it, its old compiled rules (version 1 and generation 0 again). The
// gate's config cache is on (10s); the recreated tenant allows more.
func TestRecreatedTenantStartsAfresh(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	daily := func(limit int) string {
		return fmt.Sprintf(`{"id": "daily", "rules": [{"name": "day", "algorithm": "fixed_window", "limit": %d, "period": "day"}]}`, limit)
	}
	allowed := func(n int, key string) int {
		ok := 0
		for range n {
			if f.check(t, gate.Request{Method: "GET", Resource: "/x", APIKey: key}).Status == gate.Allowed {
				ok++
			}
			f.clock.add(sec / 10)
		}
		return ok
	}
	f.createTenant(t, daily(1))
	old, _ := f.addKey(t, "daily")
	if got := allowed(3, old); got != 1 {
		t.Fatalf("%d of 3 allowed against a limit of 1", got)
	}
	if err := f.tenants.Delete(ctx, "daily", 1); err != nil {
		t.Fatal(err)
	}
	f.createTenant(t, daily(3))
	key, _ := f.addKey(t, "daily")
	f.clock.add(gate.DefaultConfigTTL.Microseconds()) // the cached tenant expires
	if got := allowed(4, key); got != 3 {
		t.Errorf("the tenant created again with a limit of 3: %d of 4 allowed", got)
	}
}

// TestSettleOfADeletedTenantsReservationChangesNothing: a tenant deleted and created
// again (version 1 and generation 0 again, a new creation id) starts afresh
// (TestRecreatedTenantStartsAfresh), and a settle of "a reservation of a tenant changed
// since" changes nothing (docs/reference.md, "Reservations"). A reservation the first
// tenant gave must not settle into the second one's counters: it would free the slot of
// the new tenant's one request in flight, and admit a second request against a
// concurrency limit of 1. The reservation's rules identity (rulesID) holds the
// creation id.
func TestSettleOfADeletedTenantsReservationChangesNothing(t *testing.T) {
	for _, b := range counterBackends {
		t.Run(b.name, func(t *testing.T) {
			counters := b.open(t)
			f := newFixture(t, func(c *gate.Config) { withSecret(c); c.ConfigTTL = -1; c.Counters = counters })
			checkSettleOfADeletedTenantsReservation(t, f)
		})
	}
}

// checkSettleOfADeletedTenantsReservation runs the steps of
// TestSettleOfADeletedTenantsReservationChangesNothing on f.
func checkSettleOfADeletedTenantsReservation(t *testing.T, f *fixture) {
	ctx := context.Background()
	agent := `{"id": "agent", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 1, "lease": "60s"}]}`
	f.createTenant(t, agent)
	old, _ := f.addKey(t, "agent")
	first := f.check(t, gate.Request{APIKey: old, Method: "POST", Resource: "/run"})
	if first.Status != gate.Allowed || first.Reservation.ID == "" {
		t.Fatalf("the first tenant's request: %v, reservation %q", first.Status, first.Reservation.ID)
	}
	if err := f.tenants.Delete(ctx, "agent", 1); err != nil {
		t.Fatal(err)
	}
	f.createTenant(t, agent)
	key, _ := f.addKey(t, "agent")
	f.clock.add(sec)
	req := gate.Request{APIKey: key, Method: "POST", Resource: "/run"}
	if res := f.check(t, req); res.Status != gate.Allowed {
		t.Fatalf("the tenant created again: its first request %v (%s)", res.Status, res.Reason)
	}
	if r := settle(t, f.g, first.Reservation.ID, 1); r.Status != gate.SettleRulesChanged {
		t.Errorf("the deleted tenant's reservation: %q, want %q (not settled into the new tenant's counters)", r.Status, gate.SettleRulesChanged)
	}
	if res := f.check(t, req); res.Status != gate.Denied {
		t.Errorf("a second request in flight against a concurrency limit of 1: %v, want denied", res.Status)
	}
}
