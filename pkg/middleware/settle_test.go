package middleware_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/middleware"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// llm counts tokens per day; each POST /chat reserves 1000.
const llm = `{"id": "acme", "rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 100000, "period": "day"}],
  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 1000000, "period": "day"}]}]}`

// settleFixture is a middleware over a gate with a reservation secret, recording the
// settles it makes.
type settleFixture struct {
	mw      *middleware.Middleware
	key     string
	settles []error
	results []gate.SettleResult
}

func newSettleFixture(t *testing.T) *settleFixture {
	t.Helper()
	return newSettleFixtureOf(t, llm)
}

// newSettleFixtureOf is newSettleFixture over the tenant of tenantJSON.
func newSettleFixtureOf(t *testing.T, tenantJSON string) *settleFixture {
	t.Helper()
	tenants, key := seedTenant(t, tenantJSON)
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return t0 },
		ReservationSecret: bytes.Repeat([]byte("m"), gate.MinSecretBytes)})
	if err != nil {
		t.Fatal(err)
	}
	f := &settleFixture{key: key.Reveal()}
	f.mw, err = middleware.New(middleware.Config{Gate: g, OnSettle: func(r gate.SettleResult, err error) {
		f.results, f.settles = append(f.results, r), append(f.settles, err)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSettleFromHandler: through net/http, the handler sees its reservation and
// settles it by SetCost or by the response header, which the client never sees; a
// header that is not a cost settles nothing and is reported.
func TestSettleFromHandler(t *testing.T) {
	f := newSettleFixture(t)
	steps := []struct {
		name          string
		handle        func(w http.ResponseWriter, r *http.Request)
		wantRemaining string // before this request's handler ran: tokens left after its reservation
		wantErr       error
	}{
		{"header", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(middleware.SettleCostHeader, "4000")
			w.WriteHeader(201)
			io.WriteString(w, "done")
		}, "99000", nil},
		{"SetCost", func(w http.ResponseWriter, r *http.Request) {
			if res, ok := middleware.ReservationFrom(r.Context()); !ok || res.Cost != 1000 || res.ID == "" {
				t.Errorf("ReservationFrom: %+v, %v", res, ok)
			}
			w.Header().Set(middleware.SettleCostHeader, "99999") // SetCost wins
			io.WriteString(w, "streamed")
			middleware.SetCost(r.Context(), 10)
		}, "95000", nil},
		{"header, nothing written", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(middleware.SettleCostHeader, "0")
		}, "94990", nil},
		{"a header that is not a cost", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(middleware.SettleCostHeader, "4k")
		}, "94990", middleware.ErrSettleCostHeader},
		{"no settle", func(w http.ResponseWriter, r *http.Request) {}, "93990", nil},
	}
	for i, s := range steps {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/chat", nil)
		req.Header.Set("x-api-key", f.key)
		f.mw.Handler(http.HandlerFunc(s.handle)).ServeHTTP(rec, req)
		if rec.Header().Get("X-RateLimit-Remaining") != s.wantRemaining {
			t.Errorf("%s: remaining %q, want %s", s.name, rec.Header().Get("X-RateLimit-Remaining"), s.wantRemaining)
		}
		if v, ok := rec.Result().Header[http.CanonicalHeaderKey(middleware.SettleCostHeader)]; ok {
			t.Errorf("%s: the client saw %s: %q", s.name, middleware.SettleCostHeader, v)
		}
		if s.name == "no settle" {
			if len(f.settles) != 4 {
				t.Errorf("no settle: %d settles in all, want 4", len(f.settles))
			}
			continue
		}
		if len(f.settles) != i+1 || !errors.Is(f.settles[i], s.wantErr) {
			t.Fatalf("%s: settles %v, want the last %v", s.name, f.settles, s.wantErr)
		}
		if s.wantErr == nil && f.results[i].Status != gate.SettleSettled {
			t.Errorf("%s: %+v", s.name, f.results[i])
		}
	}
}

// TestSettleFromLambdaResponse: an aws-lambda-go handler settles through its response's
// header, in either map and any case, and the header is removed from the response.
func TestSettleFromLambdaResponse(t *testing.T) {
	f := newSettleFixture(t)
	costs := []int64{4000, 0}
	h := f.mw.APIGatewayV2(func(ctx context.Context, e events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		cost := strconv.FormatInt(costs[0], 10)
		costs = costs[1:]
		return events.APIGatewayV2HTTPResponse{StatusCode: 200, Headers: map[string]string{"x-ratelimit-settle-cost": cost}}, nil
	})
	ev := events.APIGatewayV2HTTPRequest{RouteKey: "POST /chat", Headers: map[string]string{"x-api-key": f.key}}
	ev.RequestContext.HTTP.Method = "POST"
	for i, want := range []string{"99000", "95000"} {
		resp, err := h(context.Background(), ev)
		remaining := http.Header{"X-Ratelimit-Remaining": {resp.Headers[http.CanonicalHeaderKey("X-RateLimit-Remaining")]}}.Get("X-RateLimit-Remaining")
		if err != nil || remaining != want {
			t.Fatalf("request %d: %v, remaining %q in %v, want %s", i+1, err, remaining, resp.Headers, want)
		}
		if _, ok := resp.Headers["x-ratelimit-settle-cost"]; ok {
			t.Errorf("request %d: the header reached the client", i+1)
		}
	}
	if len(f.settles) != 2 || f.settles[0] != nil || f.results[1].Status != gate.SettleSettled || f.results[1].Actual != 0 {
		t.Errorf("settles %v %+v", f.settles, f.results)
	}
}
