package middleware_test

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/middleware"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// TestProbeLeakyDelayNotWaitedHoldsNoSlot: a concurrency rule admits "fewer than
// limit requests in flight: each allowed request holds one slot ... until it is
// settled ... or its lease ends" (docs/reference.md, "Rules"), and the middleware
// settles once the handler returns. A request whose leaky-bucket delay is past
// MaxDelay is answered 429 and never reaches the handler ("the bucket counted it",
// docs/reference.md, "Caveats"); it is not in flight, so it must not keep a slot.
// Found by the red-team review: each such 429 keeps its slot for the whole lease
// (60 s here), and once the bucket has drained and nothing is in flight the tenant
// is denied by its concurrency rule.
func TestProbeLeakyDelayNotWaitedHoldsNoSlot(t *testing.T) {
	ctx := context.Background()
	tenants, key := seedTenant(t, `{"id": "acme", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 2, "lease": "60s"}],
	  "routes": [{"method": "POST", "resource": "/queue", "rules": [{"name": "queue", "algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 5}]}]}`)
	var now atomic.Int64
	now.Store(t0)
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: now.Load,
		ReservationSecret: bytes.Repeat([]byte("m"), gate.MinSecretBytes)})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := middleware.New(middleware.Config{Gate: g, MaxDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	h := mw.APIGatewayProxy(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	})
	var last events.APIGatewayProxyResponse
	send := func() int {
		last, _ = h(ctx, events.APIGatewayProxyRequest{HTTPMethod: "POST", Resource: "/queue", Headers: keyHeaders(key.Reveal())})
		return last.StatusCode
	}
	if got := []int{send(), send(), send()}; got[0] != 200 || got[1] != 429 || got[2] != 429 {
		t.Fatalf("three requests at once, MaxDelay -1: %v; want 200 (no delay), then 429 twice (delays 100ms, 200ms)", got)
	}
	now.Add((10 * time.Second).Microseconds()) // the bucket has drained; nothing is in flight
	if got := send(); got != 200 {
		t.Errorf("10 s later, with no request in flight: %d (%s); want 200", got, last.Body)
	}
}
