package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// poolJSON allows 2 requests in flight for the whole tenant (a 1 h lease).
const poolJSON = `{"id": "pool", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 2, "lease": "1h"}]}`

// TestRevokedKeysSettlesFreeTheTenantsSlots: a key that is revoked while its requests
// are in flight (a leaked key, say) must not keep the tenant's concurrency slots once
// those requests end and are settled: the tenant's other keys share them. A key
// without rules of its own settles normally after its revocation; a key with rules of
// its own (POST /tenants/{id}/keys {"rules": [...]}) answers rules_changed, because
// the settle looks the key up again and finds it gone, so its slots in the tenant's
// counter are held until the lease ends (an hour here, up to 24 h) and every other key
// of the tenant is denied meanwhile.
func TestRevokedKeysSettlesFreeTheTenantsSlots(t *testing.T) {
	for _, tc := range []struct {
		name string
		own  []limiter.Rule
	}{
		{"key without rules of its own", nil},
		{"key with rules of its own", []limiter.Rule{{Name: "per-key", Algorithm: limiter.FixedWindow, Limit: 100, Period: limiter.Every(time.Minute)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *gate.Config) { withSecret(c); c.ConfigTTL = -1 }) // no cache: the revocation applies at once
			f.createTenant(t, poolJSON)
			leaked, rec := apikey.Generate("pool", t0)
			rec.Rules = tc.own
			if err := f.tenants.PutKey(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			other, _ := f.addKey(t, "pool")
			var ids []string
			for range 2 {
				res := f.check(t, gate.Request{APIKey: leaked.Reveal(), Method: "GET", Resource: "/x"})
				if res.Status != gate.Allowed || res.Reservation.ID == "" {
					t.Fatalf("the leaked key's request: %+v", res)
				}
				ids = append(ids, res.Reservation.ID)
			}
			if err := f.tenants.RevokeKey(context.Background(), "pool", leaked.ID(), f.clock.Now()); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids { // the two requests end
				if r := settle(t, f.g, id, 1); r.Status != gate.SettleSettled {
					t.Errorf("settle of an ended request of the revoked key: %s, want settled (its tenant slot freed)", r.Status)
				}
			}
			if res := f.check(t, gate.Request{APIKey: other, Method: "GET", Resource: "/x"}); res.Status != gate.Allowed {
				t.Errorf("the tenant's other key, with nothing in flight: %s by %q (retry in %d µs), want allowed", res.Status, res.Rule, res.Decision.RetryAfter)
			}
		})
	}
}
