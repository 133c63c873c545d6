package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/middleware"
)

// TestSettleWithoutACost: a handler that reports no usable cost leaves its request's
// estimate, and a request that holds a concurrency slot is settled at that estimate
// (which frees the slot and changes no window); one over rate rules only is not settled
// at all, which would cost a store call for nothing. A SettleCostHeader that is not a
// cost is reported with the settle's outcome.
func TestSettleWithoutACost(t *testing.T) {
	for _, tt := range []struct {
		name, tenant, header  string
		requests, wantSettles int
		wantErr               error
	}{
		{"concurrency, no cost", inflight, "", 5, 5, nil},
		{"concurrency, a header that is not a cost", inflight, "4k", 5, 5, middleware.ErrSettleCostHeader},
		{"rate rules only, no cost", acme, "", 2, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newSettleFixtureOf(t, tt.tenant)
			h := f.mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.header != "" {
					w.Header().Set(middleware.SettleCostHeader, tt.header)
				}
			}))
			for i := range tt.requests {
				req := httptest.NewRequest(http.MethodGet, "/hello", nil)
				req.Header.Set("x-api-key", f.key)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					t.Fatalf("sequential request %d: %d %s, want 200", i+1, rec.Code, rec.Body)
				}
			}
			if len(f.results) != tt.wantSettles {
				t.Fatalf("%d settles, want %d: %+v", len(f.results), tt.wantSettles, f.results)
			}
			for i, r := range f.results {
				if r.Status != gate.SettleSettled || r.Actual != r.Reserved || r.Reserved != 1 || !errors.Is(f.settles[i], tt.wantErr) {
					t.Errorf("settle %d: %+v, %v; want settled at the estimate 1, error %v", i+1, r, f.settles[i], tt.wantErr)
				}
			}
		})
	}
}

// TestLambdaHandlerPanicSettles: aws-lambda-go recovers a handler's panic and answers
// the invocation with an error, so the request is over: each wrapper settles it (here
// at the cost reported first) and frees its concurrency slot, and the panic goes on.
func TestLambdaHandlerPanicSettles(t *testing.T) {
	ctx := context.Background()
	report := func(ctx context.Context) { middleware.SetCost(ctx, 1); panic("handler failed") }
	wrappers := []struct {
		name string
		call func(mw *middleware.Middleware, key string) int
	}{
		{"APIGatewayProxy", func(mw *middleware.Middleware, key string) int {
			h := mw.APIGatewayProxy(func(ctx context.Context, e events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				report(ctx)
				return events.APIGatewayProxyResponse{}, nil
			})
			resp, _ := h(ctx, events.APIGatewayProxyRequest{Resource: "/hello", HTTPMethod: "GET", Headers: map[string]string{"x-api-key": key}})
			return resp.StatusCode
		}},
		{"APIGatewayV2", func(mw *middleware.Middleware, key string) int {
			h := mw.APIGatewayV2(func(ctx context.Context, e events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
				report(ctx)
				return events.APIGatewayV2HTTPResponse{}, nil
			})
			resp, _ := h(ctx, events.APIGatewayV2HTTPRequest{RouteKey: "GET /hello", Headers: map[string]string{"x-api-key": key}})
			return resp.StatusCode
		}},
		{"FunctionURL", func(mw *middleware.Middleware, key string) int {
			h := mw.FunctionURL(func(ctx context.Context, e events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
				report(ctx)
				return events.LambdaFunctionURLResponse{}, nil
			})
			resp, _ := h(ctx, events.LambdaFunctionURLRequest{RawPath: "/hello", Headers: map[string]string{"x-api-key": key}})
			return resp.StatusCode
		}},
		{"ALB", func(mw *middleware.Middleware, key string) int {
			h := mw.ALB(func(ctx context.Context, e events.ALBTargetGroupRequest) (events.ALBTargetGroupResponse, error) {
				report(ctx)
				return events.ALBTargetGroupResponse{}, nil
			})
			resp, _ := h(ctx, events.ALBTargetGroupRequest{Path: "/hello", HTTPMethod: "GET", Headers: map[string]string{"x-api-key": key}})
			return resp.StatusCode
		}},
	}
	for _, w := range wrappers {
		t.Run(w.name, func(t *testing.T) {
			f := newSettleFixtureOf(t, inflight)
			for i := range 3 { // a limit of 2 in flight: the third needs a freed slot
				if p := panics(func() { w.call(f.mw, f.key) }); p != "handler failed" {
					t.Fatalf("request %d: panic %v, want the handler's to go on", i+1, p)
				}
			}
			if len(f.results) != 3 || f.results[2].Status != gate.SettleSettled || f.settles[2] != nil {
				t.Fatalf("settles %+v %v, want 3 settled", f.results, f.settles)
			}
		})
	}
}

// panics calls f and returns what it panicked with, or nil.
func panics(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}
