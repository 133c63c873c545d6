package authorizer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// TestReservationInContext: with a reservation secret, an Allow carries the request's
// reservation under "reservation", which the gate settles; a Deny carries none.
func TestReservationInContext(t *testing.T) {
	tenants, err := memory.LoadFile(filepath.Join(eventsDir, "tenants.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := testNow
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return now },
		ReservationSecret: bytes.Repeat([]byte("r"), gate.MinSecretBytes)})
	if err != nil {
		t.Fatal(err)
	}
	h, err := authorizer.New(authorizer.Config{Gate: g, Logger: slog.New(slog.DiscardHandler), Metrics: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	ev := restEvent(t, "rest-valid-key")
	var ids []string
	for i := range 6 {
		resp, err := h.REST(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		id, has := resp.Context[authorizer.CtxReservation].(string)
		allowed := resp.PolicyDocument.Statement[0].Effect == "Allow"
		if allowed != (i < 5) || has != allowed {
			t.Fatalf("request %d: allowed %v, reservation %q (present %v): want one on each Allow only", i+1, allowed, id, has)
		}
		if has {
			ids = append(ids, id)
		}
	}
	r, err := g.Settle(context.Background(), ids[0], 0)
	if err != nil || r.Status != gate.SettleSettled || r.TenantID != "demo" {
		t.Fatalf("settling the context's reservation: %+v, %v", r, err)
	}
	if resp, _ := h.REST(context.Background(), ev); resp.PolicyDocument.Statement[0].Effect != "Allow" {
		t.Errorf("after a refund of 1: %+v, want the request allowed again", resp.Context)
	}
	// Invoke's reply, its context encoded from a struct, carries them alike.
	now += 1_000_000 // the burst is back
	payload := readFile(t, eventsDir+"/rest-valid-key.json")
	for i := range 6 {
		raw, err := h.Invoke(context.Background(), payload)
		var reply struct {
			Context map[string]any `json:"context"`
		}
		if err != nil || json.Unmarshal(raw, &reply) != nil {
			t.Fatalf("Invoke %d: %s, %v", i+1, raw, err)
		}
		id, has := reply.Context[authorizer.CtxReservation].(string)
		if has != (i < 5) {
			t.Fatalf("Invoke %d: %s: want a reservation on each Allow only", i+1, raw)
		}
		if r, err := g.Settle(context.Background(), id, 1); has && (err != nil || r.Status != gate.SettleSettled) {
			t.Fatalf("settling Invoke %d's reservation: %+v, %v", i+1, r, err)
		}
	}
}
