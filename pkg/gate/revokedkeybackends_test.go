package gate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestRevokedKeysSettleOnEveryStore: on every tenant store (memory, Redis, Upstash,
// DynamoDB Local, built by internal/config as the functions build them), a key with
// rules of its own that is revoked while its request is in flight still settles it,
// freeing its slot of the tenant's concurrency rule: LookupKey answers a revoked key as
// not found (store.ErrRevoked), and the settle finds its record among the tenant's,
// which every store keeps until the key is purged. A key purged while its request is
// in flight is gone with its rules: its settle answers rules_changed, and its slot is
// held until the lease ends.
func TestRevokedKeysSettleOnEveryStore(t *testing.T) {
	for _, b := range []struct {
		name string
		env  func(t *testing.T) map[string]string
	}{
		{"memory", func(*testing.T) map[string]string { return map[string]string{} }},
		{"redis", redisEnv},
		{"upstash", upstashEnv},
		{"dynamodb", dynamoEnv},
	} {
		t.Run(b.name, func(t *testing.T) {
			st := buildStores(t, b.env(t))
			testRevokedKeySettles(t, st.Tenants, st.Counters)
		})
	}
}

// testRevokedKeySettles runs TestRevokedKeysSettleOnEveryStore's case on one store.
func testRevokedKeySettles(t *testing.T, tenants store.Tenants, counters store.Counters) {
	ctx := context.Background()
	id := uniqueID(t, "revoked")
	tn, err := tenant.Decode([]byte(strings.Replace(poolJSON, `"pool"`, `"`+id+`"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(ctx, tn); err != nil {
		t.Fatal(err)
	}
	own := []limiter.Rule{{Name: "per-key", Algorithm: limiter.FixedWindow, Limit: 100, Period: limiter.Every(time.Minute), Scope: limiter.ScopeKey}}
	var keys [3]apikey.Key // revoked, purged (both with rules of their own), the other key
	for i := range keys {
		var rec apikey.Record
		keys[i], rec = apikey.Generate(id, limiter.Micros(time.Now()))
		if i < 2 {
			rec.Rules = own
		}
		if err := tenants.PutKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	clk := newClock()
	clk.now.Store(limiter.Micros(time.Now())) // the stores' own expiries run on the real clock
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: clk.Now, ConfigTTL: -1,
		LatencyBudget: 10 * time.Second, ReservationSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	check := func(k apikey.Key) gate.Result {
		res, err := g.Check(ctx, gate.Request{APIKey: k.Reveal(), Method: "GET", Resource: "/x"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	revokedRes, purgedRes := check(keys[0]), check(keys[1]) // the tenant's 2 slots
	if revokedRes.Reservation.ID == "" || purgedRes.Reservation.ID == "" {
		t.Fatalf("the two requests: %s and %s, want both allowed with a reservation", revokedRes.Status, purgedRes.Status)
	}
	now := clk.Now()
	if err := tenants.RevokeKey(ctx, id, keys[0].ID(), now); err != nil {
		t.Fatal(err)
	}
	if err := tenants.RevokeKey(ctx, id, keys[1].ID(), now); err != nil {
		t.Fatal(err)
	}
	if err := tenants.DeleteKey(ctx, id, keys[1].ID()); err != nil {
		t.Fatal(err)
	}
	if r := settle(t, g, revokedRes.Reservation.ID, 1); r.Status != gate.SettleSettled {
		t.Errorf("settle of the revoked key's request: %s, want settled", r.Status)
	}
	if r := settle(t, g, purgedRes.Reservation.ID, 1); r.Status != gate.SettleRulesChanged {
		t.Errorf("settle of the purged key's request: %s, want rules_changed (its rules are gone)", r.Status)
	}
	if res := check(keys[2]); res.Status != gate.Allowed {
		t.Errorf("the other key, in the slot the revoked key's settle freed: %s by %q, want allowed", res.Status, res.Rule)
	}
	if res := check(keys[2]); res.Status != gate.Denied || res.Rule != "inflight" {
		t.Errorf("the other key, with the purged key's slot still held: %s by %q, want denied by inflight", res.Status, res.Rule)
	}
}
