package middleware_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/middleware"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// inflight allows 2 requests in flight (a 60 s lease), and many a minute.
const inflight = `{"id": "acme", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 2, "lease": "60s"},
  {"name": "minute", "algorithm": "fixed_window", "limit": 1000, "period": "1m"}]}`

// newInflightMiddleware is a middleware over a gate with a reservation secret (so that
// settles free slots), at a frozen clock: no lease can end during the test.
func newInflightMiddleware(t *testing.T) (*middleware.Middleware, string) {
	t.Helper()
	tenants, key := seedTenant(t, inflight)
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return t0 },
		ReservationSecret: bytes.Repeat([]byte("c"), gate.MinSecretBytes)})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := middleware.New(middleware.Config{Gate: g})
	if err != nil {
		t.Fatal(err)
	}
	return mw, key.Reveal()
}

// TestConcurrencySlotFreedWhenHandlerReturnsWithoutCost: a concurrency rule limits
// requests in flight, each holding its slot "until it is settled or its lease ends".
// Requests that run one after another are never two in flight, so with a limit of 2
// every one of them must be allowed, whether or not the handler reports a cost
// (SetCost or X-RateLimit-Settle-Cost): a handler that has nothing to report (its cost
// is the route's estimate) has still finished. The middleware settles only when a cost
// was reported, so the slot of every other request is held for the whole lease and the
// third sequential request gets 429.
func TestConcurrencySlotFreedWhenHandlerReturnsWithoutCost(t *testing.T) {
	t.Run("net/http", func(t *testing.T) {
		mw, key := newInflightMiddleware(t)
		h := mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK) // done; no cost to report
		}))
		for i := range 5 {
			req := httptest.NewRequest(http.MethodGet, "/hello", nil)
			req.Header.Set("x-api-key", key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("sequential request %d (none other in flight, limit 2): %d %s, want 200", i+1, rec.Code, rec.Body)
			}
		}
	})
	t.Run("APIGatewayV2", func(t *testing.T) {
		mw, key := newInflightMiddleware(t)
		h := mw.APIGatewayV2(func(ctx context.Context, e events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusOK}, nil
		})
		for i := range 5 {
			resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{RouteKey: "GET /hello", Headers: map[string]string{"x-api-key": key},
				RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", SourceIP: "203.0.113.7"}}})
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("sequential request %d (none other in flight, limit 2): %d %v %s, want 200", i+1, resp.StatusCode, err, resp.Body)
			}
		}
	})
}
