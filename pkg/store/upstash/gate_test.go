package upstash

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
			// Without its epoch marker: the gate's epoch check (a GET in the background of
			// its first decision) is not one of the lookups counted.
			g, err := gate.New(gate.Config{Tenants: struct{ gate.Tenants }{tenants}, Counters: NewCounters(c, CountersConfig{}),
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

// scriptSpotter is a transport that counts the requests it forwards and those that
// run a script (EVAL or EVALSHA).
type scriptSpotter struct {
	next             http.RoundTripper
	requests, script atomic.Int64
}

func (s *scriptSpotter) RoundTrip(req *http.Request) (*http.Response, error) {
	s.requests.Add(1)
	if req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			head := make([]byte, 8)
			n, _ := io.ReadFull(body, head)
			if bytes.HasPrefix(bytes.ToUpper(head[:n]), []byte(`["EVAL`)) {
				s.script.Add(1)
			}
		}
	}
	return s.next.RoundTrip(req)
}

// Regression (keytenant.lua declared no keys, so on Upstash every unknown key, random
// well-formed keys from anyone, ran under the database's global script lock): 200,000
// random well-formed keys through a gate over the Upstash stores with key locking,
// against upstash-local, which refuses a key-locked script that touches an undeclared
// key. Each is refused with one request, none of them a script.
func TestUnknownKeysRunNoScript(t *testing.T) {
	if raceEnabled {
		t.Skip("200,000 requests: run without -race (scripts/test.sh)")
	}
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	url, token := testenv.UpstashURL(t)
	spot := &scriptSpotter{next: http.DefaultTransport}
	c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token, KeyLocking: true, HTTPClient: &http.Client{Transport: spot}})
	if err != nil {
		t.Fatal(err)
	}
	// What is tested is which commands go, not their latency (TestGateRoundTrips and
	// internal/authorizer's fault tests hold the budget): a budget that a loaded test
	// machine does not exceed.
	// The tenant store is seen through gate.Tenants alone, without its epoch marker:
	// what is counted is the lookups, not the gate's epoch checks (a GET per config TTL).
	g, err := gate.New(gate.Config{Tenants: struct{ gate.Tenants }{newTestTenantsOn(t, c)}, Counters: NewCounters(c, CountersConfig{}),
		LatencyBudget: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for next.Add(1) <= int64(n) && ctx.Err() == nil {
				k, _ := apikey.Generate("nobody", 1_781_092_800_000_000)
				res, err := g.Check(ctx, gate.Request{Method: "GET", Resource: "/", APIKey: k.Reveal()})
				if err != nil || res.Status != gate.Unauthorized || res.FailOpen {
					t.Errorf("Check of an unknown key: %+v, %v; want unauthorized", res, err)
					cancel()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		t.Fatalf("%d keys not looked up within the time: %v", n, err)
	}
	if r, s := spot.requests.Load(), spot.script.Load(); r != int64(n) || s != 0 {
		t.Errorf("%d unknown keys made %d requests, %d of them scripts; want %d, none", n, r, s, n)
	}
}
