package authorizer_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/testenv"
)

const faultBudget = 100 * time.Millisecond // the default EDGELIMIT_LATENCY_BUDGET

// Against each shared store behind a faulty TCP proxy (connections refused, accepted
// but never answered, answered after twice the budget): the answer comes within the
// budget + 100 ms (median of 5; not timed under -race) with the tenant's fail mode,
// closed or open, and the next requests succeed once the store is back.
func TestFaultsOnSharedStores(t *testing.T) {
	for _, b := range append(sharedBackends, redisBackend) {
		t.Run(b.name, func(t *testing.T) {
			target, seed, env := b.setup(t)
			proxy := newFaultProxy(t, target, 2*faultBudget)
			_, closedKey := seedTenant(t, seed, `{"id": "closed", "fail_mode": "closed", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 1000, "period": "1m"}]}`)
			_, openKey := seedTenant(t, seed, `{"id": "open", "fail_mode": "open", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 1000, "period": "1m"}]}`)
			vars := env("http://" + proxy.addr)
			vars["EDGELIMIT_CONFIG_TTL"] = "10m" // the tenants are cached before the faults
			h := handlerFromEnv(t, vars, http.DefaultTransport.(*http.Transport).Clone())
			closedReq, openReq := restWithKey(t, closedKey), restWithKey(t, openKey)
			for _, req := range [][]byte{closedReq, openReq} {
				// The first requests load the tenant and open connections, which a
				// cold DynamoDB Local may take longer than the budget to answer.
				checkRecovers(t, h, req)
			}
			for _, f := range []fault{refuse, hang, slow} {
				t.Run(f.String(), func(t *testing.T) {
					proxy.set(f)
					checkFailModes(t, h, closedReq, openReq)
					proxy.set(forward)
					checkRecovers(t, h, closedReq)
				})
			}
		})
	}
}

// checkFailModes invokes both tenants 5 times and checks their fail modes and the
// median latency.
func checkFailModes(t *testing.T, handler *authorizer.Handler, closedReq, openReq []byte) {
	t.Helper()
	var latencies []time.Duration
	for range 5 {
		start := time.Now()
		closed := invokeREST(handler, closedReq)
		latencies = append(latencies, time.Since(start))
		if closed.err != nil || closed.effect != "Deny" || closed.ctx["retryAfter"] != 1.0 || closed.ctx["failOpen"] != false || closed.ctx["failClosed"] != true {
			t.Fatalf("fail closed: %+v", closed)
		}
		start = time.Now()
		open := invokeREST(handler, openReq)
		latencies = append(latencies, time.Since(start))
		if open.err != nil || open.effect != "Allow" || open.ctx["failOpen"] != true || open.ctx["failClosed"] != false {
			t.Fatalf("fail open: %+v", open)
		}
	}
	slices.Sort(latencies)
	median := latencies[len(latencies)/2]
	t.Logf("latency: median %v, max %v (budget %v)", median, latencies[len(latencies)-1], faultBudget)
	if !raceEnabled && median > faultBudget+100*time.Millisecond {
		t.Errorf("median latency %v, want at most the budget %v + 100ms", median, faultBudget)
	}
}

// checkRecovers requires the store's answers back within a few requests (a pooled
// connection dropped by the proxy may fail the first one).
func checkRecovers(t *testing.T, h *authorizer.Handler, req []byte) {
	t.Helper()
	for attempt := range 10 {
		a := invokeREST(h, req)
		if a.effect == "Allow" && a.ctx["failOpen"] == false && a.ctx["remaining"].(float64) > 0 {
			return
		}
		t.Logf("attempt %d after the store is back: %+v", attempt+1, a)
	}
	t.Fatal("the store is back but the answers are still the fail mode's")
}

// The denial cache answers a key over its limit with 0 requests to the shared store.
// The store's epoch is read before the counting starts.
func TestDenialCacheOnSharedStores(t *testing.T) {
	for _, b := range sharedBackends {
		t.Run(b.name, func(t *testing.T) {
			target, seed, env := b.setup(t)
			_, key := seedTenant(t, seed, `{"id": "one", "rules": [{"name": "one", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`)
			vars := env("http://" + target)
			ct := &testenv.CountingTransport{Next: http.DefaultTransport.(*http.Transport).Clone()}
			g := gateFromEnv(t, vars, ct)
			// The epoch read first: the first decision would start it in its
			// background, and it could reach the store during the counted denial.
			if _, err := g.CheckEpoch(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			h := handlerOf(t, g)
			req := restWithKey(t, key)
			if a := invokeREST(h, req); a.effect != "Allow" {
				t.Fatalf("first: %+v", a)
			}
			ct.Reset()
			if a := invokeREST(h, req); a.effect != "Deny" {
				t.Fatalf("second: %+v", a)
			}
			if n := ct.Reset(); n != 1 {
				t.Fatalf("the denial took %d requests, want 1", n)
			}
			for range 10 {
				if a := invokeREST(h, req); a.effect != "Deny" || a.ctx["retryAfter"].(float64) < 1 {
					t.Fatalf("cached: %+v", a)
				}
			}
			if n := ct.Count(); n != 0 {
				t.Fatalf("10 denied requests made %d requests to the store, want 0", n)
			}
		})
	}
}
