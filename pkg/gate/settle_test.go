package gate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// llmJSON limits tokens per day tenant-wide, with a chat route reserving 1000 each.
const llmJSON = `{"id": "llm", "rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 100000, "period": "day"}],
  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 1000000, "period": "day"}]}]}`

// llmFixture is a fixture with a reservation secret and the llm tenant's key.
func llmFixture(t *testing.T) (*fixture, gate.Request) {
	f := newFixture(t, withSecret)
	f.createTenant(t, llmJSON)
	key, _ := f.addKey(t, "llm")
	return f, gate.Request{APIKey: key, Method: "POST", Resource: "/chat"}
}

// tokensLeft peeks at what the llm tenant's tokens rule has left, from the checks of
// res (its tenant-wide counter is the last).
func tokensLeft(t *testing.T, f *fixture, res gate.Result) int64 {
	t.Helper()
	c := res.Checks[len(res.Checks)-1]
	outs := make([]limiter.Outcome, c.Set.Len())
	d, err := f.counters.Peek(context.Background(), c.Key, c.Set, f.clock.Now(), outs)
	if err != nil {
		t.Fatal(err)
	}
	return d.Remaining
}

func settle(t *testing.T, g *gate.Gate, id string, cost int64) gate.SettleResult {
	t.Helper()
	r, err := g.Settle(context.Background(), id, cost)
	if err != nil {
		t.Fatalf("Settle(%d): %v", cost, err)
	}
	return r
}

// TestSettle: a settle charges the difference once; a second settle, a forged id, an
// id of another gate's secret and an expired reservation change nothing and say so.
func TestSettle(t *testing.T) {
	f, req := llmFixture(t)
	res := f.check(t, req)
	id := res.Reservation.ID
	if left := tokensLeft(t, f, res); left != 99000 {
		t.Fatalf("after the reservation: %d tokens left, want 99000", left)
	}
	f.clock.add(sec)
	if r := settle(t, f.g, id, 4000); r.Status != gate.SettleSettled || r.Reserved != 1000 || r.Actual != 4000 || r.TenantID != "llm" || r.Route != "POST /chat" {
		t.Fatalf("settle: %+v", r)
	}
	forged := []byte(id)
	forged[len(forged)/2] ^= 1
	foreign := newFixture(t, func(c *gate.Config) { c.ReservationSecret = []byte("another secret of thirty-two bytes!") })
	steps := []struct {
		name string
		g    *gate.Gate
		id   string
		want gate.SettleStatus
	}{
		{"twice", f.g, id, gate.SettleAlreadySettled},
		{"forged", f.g, string(forged), gate.SettleUnknown},
		{"not base64", f.g, "not a token!", gate.SettleUnknown},
		{"empty", f.g, "", gate.SettleUnknown},
		{"another secret", foreign.g, id, gate.SettleUnknown},
		{"reservations off", newFixture(t, nil).g, id, gate.SettleOff},
	}
	for _, s := range steps {
		if r := settle(t, s.g, s.id, 50000); r.Status != s.want {
			t.Errorf("%s: %+v, want %s", s.name, r, s.want)
		}
	}
	if left := tokensLeft(t, f, res); left != 96000 {
		t.Errorf("after the settles: %d tokens left, want 96000 (charged 3000 more once)", left)
	}
}

// TestSettleRefundsAndExpires: settling below the estimate refunds the difference; a
// reservation past its 15 minutes cannot be settled and its estimate stands.
func TestSettleRefundsAndExpires(t *testing.T) {
	f, req := llmFixture(t)
	refunded, expired := f.check(t, req), f.check(t, req)
	if r := settle(t, f.g, refunded.Reservation.ID, 0); r.Status != gate.SettleSettled {
		t.Fatalf("settle at 0: %+v", r)
	}
	if left := tokensLeft(t, f, refunded); left != 99000 {
		t.Fatalf("after a refund of 1000: %d left, want 99000", left)
	}
	f.clock.add((15 * time.Minute).Microseconds())
	if r := settle(t, f.g, expired.Reservation.ID, 0); r.Status != gate.SettleExpired || r.Reserved != 1000 {
		t.Errorf("settle at the expiry: %+v, want expired", r)
	}
	if left := tokensLeft(t, f, expired); left != 99000 {
		t.Errorf("after the expired settle: %d left, want 99000", left)
	}
}

// TestSettleAfterTheRulesChanged: a reservation of an earlier version of the tenant
// is not settled: nothing is charged or refunded.
func TestSettleAfterTheRulesChanged(t *testing.T) {
	f, req := llmFixture(t)
	res := f.check(t, req)
	tn, err := f.tenants.Get(context.Background(), "llm")
	if err != nil {
		t.Fatal(err)
	}
	tn.Metadata = map[string]string{"plan": "pro"}
	if _, err := f.tenants.Replace(context.Background(), tn, tn.Version); err != nil {
		t.Fatal(err)
	}
	f.clock.add(gate.DefaultConfigTTL.Microseconds() + 1) // the cached version is reloaded
	if r := settle(t, f.g, res.Reservation.ID, 0); r.Status != gate.SettleRulesChanged {
		t.Errorf("settle: %+v, want rules_changed", r)
	}
	if left := tokensLeft(t, f, res); left != 99000 {
		t.Errorf("%d left, want 99000: the estimate stands", left)
	}
}

// plainStore is a Counters without Settle.
type plainStore struct{ store.Counters }

// TestSettleErrors: a bad cost and a store that cannot settle are errors, and change
// nothing.
func TestSettleErrors(t *testing.T) {
	f, req := llmFixture(t)
	res := f.check(t, req)
	for _, cost := range []int64{-1, 1_000_000_000_001} {
		if _, err := f.g.Settle(context.Background(), res.Reservation.ID, cost); !errors.Is(err, gate.ErrSettleCost) {
			t.Errorf("Settle(%d): %v, want ErrSettleCost", cost, err)
		}
	}
	g, err := gate.New(gate.Config{Tenants: f.tenants, Counters: plainStore{f.counters}, Now: f.clock.Now, ReservationSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Settle(context.Background(), res.Reservation.ID, 0); !errors.Is(err, gate.ErrNoSettler) {
		t.Errorf("a store without Settle: %v, want ErrNoSettler", err)
	}
	if left := tokensLeft(t, f, res); left != 99000 {
		t.Errorf("%d left, want 99000", left)
	}
}
