package upstash

import (
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestGateRoundTrips counts the HTTP requests of a gate over the Upstash stores,
// sharing one client as the authorizer does: a request whose key is not cached makes
// 3 when its tenant is not cached either (GET of the record, HMGET of the tenant, the
// decision), 2 when its tenant is, and a request whose key is cached 1. No read runs
// a script: a script must declare every key it touches, and the tenant's hash is named
// in the record. A first request, with a key of another tenant, has run the decision's
// script before the count, so the server's script cache is warm: a cold one adds an
// EVAL after its NOSCRIPT (TestStoreRoundTrips counts that). With and without key
// locking.
func TestGateRoundTrips(t *testing.T) {
	for _, locking := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "key locking"}[locking], func(t *testing.T) {
			url, token := testenv.UpstashURL(t)
			ct := &testenv.CountingTransport{Next: http.DefaultTransport}
			c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token, KeyLocking: locking, HTTPClient: &http.Client{Transport: ct}})
			if err != nil {
				t.Fatal(err)
			}
			tenants := newTestTenantsOn(t, c)
			g, err := gate.New(gate.Config{Tenants: tenants, Counters: NewCounters(c, CountersConfig{}),
				Now: func() int64 { return 1_800_000_000_000_000 }})
			if err != nil {
				t.Fatal(err)
			}
			// Tenants of their own, so that no earlier run's counters count.
			warmID, id := "warm-"+strings.ToLower(rand.Text()), "gate-"+strings.ToLower(rand.Text())
			warm, key, second := putKey(t, tenants, warmID), putKey(t, tenants, id), putKey(t, tenants, id)
			check := func(key, tenantID string, wantRequests int64) {
				t.Helper()
				ct.Reset()
				res, err := g.Check(t.Context(), gate.Request{Method: "GET", Resource: "/", APIKey: key})
				if err != nil || res.Status != gate.Allowed || res.FailOpen || res.TenantID != tenantID {
					t.Fatalf("Check: %+v, %v; want allowed by %s", res, err, tenantID)
				}
				if n := ct.Reset(); wantRequests > 0 && n != wantRequests {
					t.Fatalf("%d HTTP requests (config calls %d, store calls %d), want %d", n, res.ConfigCalls, res.StoreCalls, wantRequests)
				}
			}
			check(warm, warmID, 0) // runs decide.lua, whatever the script cache held
			check(key, id, 3)      // neither the key nor its tenant cached
			check(key, id, 1)
			check(second, id, 2) // the tenant cached, the key not
			check(second, id, 1)
		})
	}
}

// putKey creates the tenant tenantID unless it exists, and a key of it.
func putKey(t *testing.T, s *Tenants, tenantID string) string {
	t.Helper()
	if _, err := s.Create(t.Context(), storetest.Tenant(tenantID)); err != nil && !errors.Is(err, store.ErrExists) {
		t.Fatal(err)
	}
	k, rec := apikey.Generate(tenantID, 1_781_092_800_000_000)
	if err := s.PutKey(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return k.Reveal()
}
