package gate_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// The LiteLLM case: clients of an LLM API whose tokens are known only once the
// response is done, against a limit of tokens per minute.
const (
	llmWorkers  = 50      // concurrent clients, each sending one request at a time
	llmEstimate = 1000    // tokens reserved per request (the route's cost)
	llmActual   = 4000    // tokens each response really costs
	llmLimit    = 100_000 // tokens a minute
	llmRequests = 20      // requests per client at most
)

// llmTenant limits tokens per minute: one counter, as LiteLLM's tokens-per-minute
// limit is. The trusted layer in front of the model (the middleware) sets each
// request's cost, the estimate it reserves.
func llmTenant(id string) string {
	return `{"id": "` + id + `", "rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 100000, "period": "1m", "unit": "tokens"}]}`
}

// TestLiteLLMCase: 50 concurrent clients whose requests are estimated at 1,000 tokens
// and cost 4,000, against 100,000 tokens a minute, on every backend with a Settler.
// Reserve-then-settle admits at most limit + in flight x (actual - estimate); charging
// after the fact (the request checked at cost 1, its tokens added once done, as
// LiteLLM did) admits up to limit + in flight x actual. Both are measured in the same
// run; the first is asserted.
func TestLiteLLMCase(t *testing.T) {
	forEachSettler(t, func(t *testing.T, counters store.Counters, budget time.Duration, callers func(int) int) {
		workers := callers(llmWorkers)
		reserve := runLLM(t, counters, budget, llmEstimate, workers)
		after := runLLM(t, counters, budget, 1, workers)
		bound := int64(llmLimit + workers*(llmActual-llmEstimate))
		t.Logf("%d concurrent clients; tokens admitted in one minute window: reserve-then-settle %d (%.2fx the limit; bound %d), charge-after %d (%.2fx)",
			workers, reserve, float64(reserve)/llmLimit, bound, after, float64(after)/llmLimit)
		if reserve > bound || reserve < llmLimit {
			t.Errorf("reserve-then-settle admitted %d tokens, want between the limit %d and the bound %d", reserve, llmLimit, bound)
		}
		if after > int64(llmLimit+workers*llmActual) {
			t.Errorf("charge-after admitted %d tokens, beyond its own bound %d", after, llmLimit+workers*llmActual)
		}
	})
}

// runLLM runs the clients against a fresh tenant whose requests reserve cost, each
// admitted request settled at llmActual after a few milliseconds of work; it returns
// the tokens admitted (llmActual per admitted request).
func runLLM(t *testing.T, counters store.Counters, budget time.Duration, cost int64, workers int) int64 {
	tenants := memory.NewTenants()
	id := uniqueID(t, "llm")
	tn, err := tenant.Decode([]byte(llmTenant(id)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(context.Background(), tn); err != nil {
		t.Fatal(err)
	}
	f := &fixture{tenants: tenants}
	key, _ := f.addKey(t, id)
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: alignedClock(), LatencyBudget: budget, ReservationSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	var admitted, failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range llmRequests {
				res, err := g.Check(context.Background(), gate.Request{APIKey: key, Method: "POST", Resource: "/chat", Cost: cost})
				if err != nil || res.FailOpen || res.FailedClosed {
					failed.Add(1)
					return
				}
				if res.Status != gate.Allowed {
					return // the client waits for the next window
				}
				admitted.Add(llmActual)
				time.Sleep(time.Duration(1+rand.IntN(5)) * time.Millisecond) // the response being generated
				if r, err := g.Settle(context.Background(), res.Reservation.ID, llmActual); err != nil || r.Status != gate.SettleSettled {
					failed.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d requests failed over or failed to settle", n)
	}
	return admitted.Load()
}
