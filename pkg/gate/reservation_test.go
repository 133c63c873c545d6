package gate_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// secret is the tests' reservation secret.
var secret = bytes.Repeat([]byte("s"), gate.MinSecretBytes)

func withSecret(c *gate.Config) { c.ReservationSecret = secret }

// TestReservationOnlyForAllowedDecisions: an allowed decision carries a reservation of
// its cost, expiring 15 minutes after it; a denial, a shadow tenant's request over its
// limit and a gate without a secret carry none.
func TestReservationOnlyForAllowedDecisions(t *testing.T) {
	f := newFixture(t, withSecret)
	f.createTenant(t, `{"id": "shadowco", "shadow": true, "rules": [{"name": "one", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`)
	shadowKey, _ := f.addKey(t, "shadowco")
	req := gate.Request{Method: "POST", Resource: "/orders", APIKey: f.key}
	first := f.check(t, req)
	r := first.Reservation
	if r.ID == "" || r.Cost != 1 || r.Expires != first.Now+(15*time.Minute).Microseconds() {
		t.Fatalf("allowed: reservation %+v, want cost 1 expiring 15 minutes after %d", r, first.Now)
	}
	if second := f.check(t, req); second.Reservation.ID == "" || second.Reservation.ID == r.ID {
		t.Errorf("a second request's reservation %q, want another one", second.Reservation.ID)
	}
	if denied := f.check(t, req); denied.Status != gate.Denied || denied.Reservation != (gate.Reservation{}) {
		t.Errorf("denied: %v, reservation %+v, want none", denied.Status, denied.Reservation)
	}
	sreq := gate.Request{Method: "GET", Resource: "/", APIKey: shadowKey}
	if in := f.check(t, sreq); in.Reservation.ID == "" {
		t.Errorf("shadow, within the limit: no reservation")
	}
	if over := f.check(t, sreq); over.Status != gate.Allowed || over.Reservation.ID != "" {
		t.Errorf("shadow, over the limit: %v, reservation %+v, want allowed without one", over.Status, over.Reservation)
	}
	off := newFixture(t, nil)
	if res := off.check(t, gate.Request{Method: "POST", Resource: "/orders", APIKey: off.key}); res.Status != gate.Allowed || res.Reservation.ID != "" {
		t.Errorf("no secret: %v, %s, reservation %+v, want allowed without one", res.Status, res.Reason, res.Reservation)
	}
}

func TestReservationSecretTooShort(t *testing.T) {
	f := newFixture(t, nil)
	_, err := gate.New(gate.Config{Tenants: f.tenants, Counters: f.counters,
		ReservationSecret: secret[:gate.MinSecretBytes-1]})
	if err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Errorf("New with a 31-byte secret: %v, want an error", err)
	}
}
