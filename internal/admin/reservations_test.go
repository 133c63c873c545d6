package admin_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// settleEnv is an env whose handler settles through a gate with a reservation secret.
func settleEnv(t *testing.T) (*env, *gate.Gate) {
	e := newEnv(t, stores{memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})})
	g, err := gate.New(gate.Config{Tenants: e.st.tenants, Counters: e.st.counters, Now: e.clock.Now,
		ConfigTTL: -1, LatencyBudget: 10 * time.Second, ReservationSecret: bytes.Repeat([]byte("a"), gate.MinSecretBytes)})
	if err != nil {
		t.Fatal(err)
	}
	if e.h, err = admin.New(admin.Config{Tenants: e.st.tenants, Counters: e.st.counters, Now: e.clock.Now, Settle: g.Settle}); err != nil {
		t.Fatal(err)
	}
	return e, g
}

// TestSettleReservation: POST /reservations/{id} settles once (200, then 200
// already_settled); a forged id is 404, an expired one 410, one of a changed tenant
// 409, a bad body 400 or 422; none changes the usage.
func TestSettleReservation(t *testing.T) {
	e, g := settleEnv(t)
	e.create("llm", `{"rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 100000, "period": "day"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 1000000, "period": "day"}]}]}`)
	raw, keyID := e.issueKey("llm")
	used := func() int64 { u := e.usage("llm", keyID); return u.Rules[u.rule(t, "", "tokens")].Used }
	first, expiring := e.check(g, raw, "POST", "/chat").Reservation.ID, e.check(g, raw, "POST", "/chat").Reservation.ID
	var res gate.SettleResult
	e.do("POST", "/reservations/"+first, `{"cost": 4000}`).want(t, http.StatusOK).json(t, &res)
	if res.Status != gate.SettleSettled || res.Reserved != 1000 || res.Actual != 4000 || used() != 5000 {
		t.Fatalf("settle: %+v, used %d, want settled and 5000 used", res, used())
	}
	e.do("POST", "/reservations/"+first, `{"cost": 9000}`).want(t, http.StatusOK).json(t, &res)
	if res.Status != gate.SettleAlreadySettled || used() != 5000 {
		t.Fatalf("twice: %+v, used %d", res, used())
	}
	forged := []byte(first)
	forged[10] ^= 1
	e.do("POST", "/reservations/"+string(forged), `{"cost": 0}`).problem(t, 404, "not-found", "")
	for body, status := range map[string]int{`{"cost": -1}`: 422, `{"cost": 1.5}`: 422, `{}`: 422, `{"cost": 1, "x": 2}`: 400, `{"cost": 1} {}`: 400} {
		if r := e.do("POST", "/reservations/"+expiring, body); r.status != status {
			t.Errorf("body %s: %d %s, want %d", body, r.status, r.body, status)
		}
	}
	e.clock.Advance(15 * time.Minute)
	e.do("POST", "/reservations/"+expiring, `{"cost": 0}`).problem(t, 410, "reservation-expired", "")
	changed := e.check(g, raw, "POST", "/chat").Reservation.ID
	e.do("PATCH", "/tenants/llm", `{"metadata": {"plan": "pro"}}`, "Content-Type", "application/merge-patch+json", "If-Match", `"1"`).want(t, http.StatusOK)
	e.do("POST", "/reservations/"+changed, `{"cost": 0}`).problem(t, 409, "rules-changed", "")
	if u := used(); u != 6000 {
		t.Errorf("used %d, want 6000: 4000 settled, two estimates of 1000 standing", u)
	}
}

// TestSettleReservationOff: without a settle function, every id is 404.
func TestSettleReservationOff(t *testing.T) {
	e := newEnv(t, stores{memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})})
	e.do("POST", "/reservations/abc", `{"cost": 1}`).problem(t, 404, "not-found", "")
}

// TestUsageShowsSlotsInUse: a concurrency rule's usage is its slots in use (limit -
// remaining): three requests in flight show 3, and 2 once one is settled.
func TestUsageShowsSlotsInUse(t *testing.T) {
	e, g := settleEnv(t)
	e.create("pool", `{"rules": [{"name": "in-flight", "algorithm": "concurrency", "limit": 10, "lease": "60s"}]}`)
	raw, keyID := e.issueKey("pool")
	var ids []string
	for range 3 {
		ids = append(ids, e.check(g, raw, "GET", "/").Reservation.ID)
	}
	slots := func() (used, remaining int64) {
		u := e.usage("pool", keyID)
		r := u.Rules[u.rule(t, "", "in-flight")]
		return r.Used, r.Remaining
	}
	if used, remaining := slots(); used != 3 || remaining != 7 {
		t.Fatalf("3 in flight: used %d, remaining %d, want 3 and 7", used, remaining)
	}
	e.do("POST", "/reservations/"+ids[0], `{"cost": 1}`).want(t, http.StatusOK)
	if used, remaining := slots(); used != 2 || remaining != 8 {
		t.Errorf("one settled: used %d, remaining %d, want 2 and 8", used, remaining)
	}
}
