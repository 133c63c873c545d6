package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/middleware"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var t0 = limiter.Micros(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))

// acme allows 2 requests a minute; queued puts a leaky bucket on POST /queue.
const (
	acme   = `{"id": "acme", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 2, "period": "1m"}]}`
	queued = `{"id": "acme", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
  "routes": [{"method": "POST", "resource": "/queue", "rules": [{"name": "queue", "algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 5}]}]}`
)

// fixture is a middleware over a gate on memory stores, with tenant acme and its key,
// a frozen clock and a sleeper that records what it was asked to wait.
type fixture struct {
	mw    *middleware.Middleware
	key   string
	slept []time.Duration
}

func newFixture(t *testing.T, tenantJSON string, maxDelay time.Duration) *fixture {
	t.Helper()
	return newFixtureOn(t, tenantJSON, maxDelay, memory.NewCounters(memory.CountersConfig{}))
}

// newFixtureOn is newFixture over the counter store given.
func newFixtureOn(t *testing.T, tenantJSON string, maxDelay time.Duration, counters store.Counters) *fixture {
	t.Helper()
	tenants, key := seedTenant(t, tenantJSON)
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: func() int64 { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{key: key.Reveal()}
	f.mw, err = middleware.New(middleware.Config{Gate: g, MaxDelay: maxDelay, Sleep: func(_ context.Context, d time.Duration) error {
		f.slept = append(f.slept, d)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// seedTenant stores the tenant of tenantJSON (its id is acme) and a key of acme in new
// memory tenants.
func seedTenant(t *testing.T, tenantJSON string) (*memory.Tenants, apikey.Key) {
	t.Helper()
	ctx := context.Background()
	tenants := memory.NewTenants()
	tn, err := tenant.Decode([]byte(tenantJSON))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(ctx, tn); err != nil {
		t.Fatal(err)
	}
	key, rec := apikey.Generate("acme", t0)
	if err := tenants.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	return tenants, key
}

// response is what each wrapper's test reads back, whatever the event type.
type response struct {
	status int
	header func(string) string
	body   string
}

// TestWrappers sends three requests (two within the limit, one over) and one without a
// key through every wrapper: the handler runs only for the allowed ones, its status,
// body and headers pass through, the rate-limit headers are added, and the others get
// 429 or 401 without reaching it. A 401, without a key or with one nobody issued,
// carries a WWW-Authenticate challenge naming the key's header and the reason (before,
// it had none, and a request to a route marked anonymous without an anonymous tenant
// configured got no hint why).
func TestWrappers(t *testing.T) {
	for name, send := range map[string]func(f *fixture, key string, calls *atomic.Int64) response{
		"net/http":     sendHTTP,
		"REST v1":      sendV1,
		"HTTP API v2":  sendV2,
		"function URL": sendFunctionURL,
		"ALB":          sendALB,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, acme, 0)
			var calls atomic.Int64
			for i, want := range []int{201, 201, 429} {
				r := send(f, f.key, &calls)
				if r.status != want {
					t.Fatalf("request %d: status %d, want %d (body %s)", i, r.status, want, r.body)
				}
				if want == 201 && (r.body != "created" || r.header("X-Handler") != "yes" || r.header("X-RateLimit-Remaining") != []string{"1", "0"}[i]) {
					t.Fatalf("request %d: the handler's response did not pass through with the headers: body %q, X-Handler %q, remaining %q", i, r.body, r.header("X-Handler"), r.header("X-RateLimit-Remaining"))
				}
				if want == 429 {
					var body struct {
						RetryAfter int64 `json:"retry_after"`
					}
					if err := json.Unmarshal([]byte(r.body), &body); err != nil || body.RetryAfter < 1 || r.header("Retry-After") == "" {
						t.Fatalf("429 without a retry: body %q, Retry-After %q", r.body, r.header("Retry-After"))
					}
				}
			}
			unknown, _ := apikey.Generate("acme", t0)
			for key, reason := range map[string]string{"": "missing API key (no anonymous tenant: no route is anonymous)",
				unknown.Reveal(): "unknown or revoked API key"} {
				r := send(f, key, &calls)
				want := `APIKey realm="edgelimit", header="x-api-key", error_description="` + reason + `"`
				if r.status != 401 || r.body != `{"message":"Unauthorized"}` || r.header("WWW-Authenticate") != want {
					t.Fatalf("key %q: status %d, body %s, WWW-Authenticate %q; want 401 and %s", key, r.status, r.body, r.header("WWW-Authenticate"), want)
				}
			}
			if n := calls.Load(); n != 2 {
				t.Fatalf("the handler ran %d times, want 2: denied requests must not reach it", n)
			}
		})
	}
}

// A key sent with whitespace around it is the key, on every wrapper, as it is for the
// authorizer (internal/request reads every kind of request alike); before, the middleware
// answered it 401 while the authorizer allowed it.
func TestKeyWithWhitespaceIsTheKey(t *testing.T) {
	for name, send := range map[string]func(f *fixture, key string, calls *atomic.Int64) response{
		"net/http": sendHTTP, "REST v1": sendV1, "HTTP API v2": sendV2, "function URL": sendFunctionURL, "ALB": sendALB,
	} {
		f := newFixture(t, acme, 0)
		var calls atomic.Int64
		if r := send(f, " "+f.key+"\t", &calls); r.status != 201 || calls.Load() != 1 {
			t.Errorf("%s: a padded key got %d (handler ran %d times), want 201", name, r.status, calls.Load())
		}
	}
}

// downStore is a counter store that is down.
type downStore struct{ store.Counters }

func (downStore) Decide(context.Context, []store.Counter, int64, int64, []limiter.Decision) error {
	return errors.New("connection refused")
}

// A 429 of the fail mode (the store is down, acme fails closed) is marked on every
// wrapper, X-RateLimit-Fail: closed and "fail_closed": true, with no limit fields; a
// limit's 429 is not. A tenant that fails open gets X-RateLimit-Fail: open and no count.
func TestFailClosedIsMarked(t *testing.T) {
	for name, send := range map[string]func(f *fixture, key string, calls *atomic.Int64) response{
		"net/http": sendHTTP, "REST v1": sendV1, "HTTP API v2": sendV2, "function URL": sendFunctionURL, "ALB": sendALB,
	} {
		var calls atomic.Int64
		down := newFixtureOn(t, acme, 0, downStore{memory.NewCounters(memory.CountersConfig{})})
		r := send(down, down.key, &calls)
		if r.status != 429 || r.header("X-RateLimit-Fail") != "closed" || r.header("X-RateLimit-Limit") != "" || !strings.Contains(r.body, `"fail_closed":true`) {
			t.Errorf("%s, store down: %d, X-RateLimit-Fail %q, X-RateLimit-Limit %q, body %s", name, r.status, r.header("X-RateLimit-Fail"), r.header("X-RateLimit-Limit"), r.body)
		}
		up := newFixture(t, acme, 0)
		for range 3 {
			r = send(up, up.key, &calls)
		}
		if r.status != 429 || r.header("X-RateLimit-Fail") != "" || !strings.Contains(r.body, `"fail_closed":false`) {
			t.Errorf("%s, over the limit: %d, X-RateLimit-Fail %q, body %s", name, r.status, r.header("X-RateLimit-Fail"), r.body)
		}
		open := newFixtureOn(t, strings.Replace(acme, `"id": "acme"`, `"id": "acme", "fail_mode": "open"`, 1), 0, downStore{memory.NewCounters(memory.CountersConfig{})})
		if r = send(open, open.key, &calls); r.status != 201 || r.header("X-RateLimit-Fail") != "open" || r.header("X-RateLimit-Remaining") != "" {
			t.Errorf("%s, store down, failing open: %d, X-RateLimit-Fail %q, X-RateLimit-Remaining %q", name, r.status, r.header("X-RateLimit-Fail"), r.header("X-RateLimit-Remaining"))
		}
	}
}

func sendHTTP(f *fixture, key string, calls *atomic.Int64) response {
	h := f.mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-Handler", "yes")
		w.WriteHeader(201)
		w.Write([]byte("created"))
	}))
	req := httptest.NewRequest("GET", "/things", nil)
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header().Get, rec.Body.String()}
}

func sendV1(f *fixture, key string, calls *atomic.Int64) response {
	h := f.mw.APIGatewayProxy(func(ctx context.Context, e events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		calls.Add(1)
		return events.APIGatewayProxyResponse{StatusCode: 201, Headers: map[string]string{"X-Handler": "yes"}, Body: "created"}, nil
	})
	resp, _ := h(context.Background(), events.APIGatewayProxyRequest{HTTPMethod: "GET", Resource: "/things", Headers: keyHeaders(key)})
	return response{resp.StatusCode, mapGetter(resp.Headers, resp.MultiValueHeaders), resp.Body}
}

func sendV2(f *fixture, key string, calls *atomic.Int64) response {
	h := f.mw.APIGatewayV2(func(ctx context.Context, e events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		calls.Add(1)
		return events.APIGatewayV2HTTPResponse{StatusCode: 201, Headers: map[string]string{"x-handler": "yes"}, Body: "created"}, nil
	})
	e := events.APIGatewayV2HTTPRequest{RouteKey: "GET /things", Headers: keyHeaders(key)}
	e.RequestContext.HTTP.Method = "GET"
	resp, _ := h(context.Background(), e)
	return response{resp.StatusCode, mapGetter(resp.Headers, resp.MultiValueHeaders), resp.Body}
}

func sendFunctionURL(f *fixture, key string, calls *atomic.Int64) response {
	h := f.mw.FunctionURL(func(ctx context.Context, e events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
		calls.Add(1)
		return events.LambdaFunctionURLResponse{StatusCode: 201, Headers: map[string]string{"X-Handler": "yes"}, Body: "created"}, nil
	})
	e := events.LambdaFunctionURLRequest{RawPath: "/things", Headers: keyHeaders(key)}
	e.RequestContext.HTTP.Method = "GET"
	resp, _ := h(context.Background(), e)
	return response{resp.StatusCode, mapGetter(resp.Headers, nil), resp.Body}
}

func sendALB(f *fixture, key string, calls *atomic.Int64) response {
	h := f.mw.ALB(func(ctx context.Context, e events.ALBTargetGroupRequest) (events.ALBTargetGroupResponse, error) {
		calls.Add(1)
		return events.ALBTargetGroupResponse{StatusCode: 201, MultiValueHeaders: map[string][]string{"X-Handler": {"yes"}}, Body: "created"}, nil
	})
	multi := map[string][]string{"X-Forwarded-For": {"203.0.113.9"}}
	if key != "" {
		multi["x-api-key"] = []string{key}
	}
	resp, _ := h(context.Background(), events.ALBTargetGroupRequest{HTTPMethod: "GET", Path: "/things", MultiValueHeaders: multi})
	return response{resp.StatusCode, mapGetter(resp.Headers, resp.MultiValueHeaders), resp.Body}
}

func keyHeaders(key string) map[string]string {
	if key == "" {
		return map[string]string{"accept": "*/*"}
	}
	return map[string]string{"x-api-key": key}
}

// mapGetter reads a header from an event response, whatever its case and map.
func mapGetter(single map[string]string, multi map[string][]string) func(string) string {
	h := http.Header{}
	for k, v := range single {
		h.Add(k, v)
	}
	for k, vs := range multi {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	return h.Get
}

// TestLeakyBucketWait: a leaky bucket of 10/s gives simultaneous requests delays of
// 0, 100, 200, 300ms...; with MaxDelay 250ms the first three run (the sleeper is asked
// for exactly 100ms and 200ms), the fourth is answered 429 without the handler. With
// waiting off, the first delay already answers 429.
func TestLeakyBucketWait(t *testing.T) {
	for _, tc := range []struct {
		name      string
		maxDelay  time.Duration
		wantSlept []time.Duration
		want      []int
		handled   int64
	}{
		{"wait up to 250ms", 250 * time.Millisecond, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, []int{200, 200, 200, 429}, 3},
		{"never wait", -1, nil, []int{200, 429, 429, 429}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, queued, tc.maxDelay)
			var calls atomic.Int64
			h := f.mw.APIGatewayProxy(func(ctx context.Context, e events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				calls.Add(1)
				return events.APIGatewayProxyResponse{StatusCode: 200}, nil
			})
			var statuses []int
			for range 4 {
				resp, _ := h(context.Background(), events.APIGatewayProxyRequest{HTTPMethod: "POST", Resource: "/queue", Headers: keyHeaders(f.key)})
				statuses = append(statuses, resp.StatusCode)
			}
			if fmt.Sprint(f.slept) != fmt.Sprint(tc.wantSlept) || fmt.Sprint(statuses) != fmt.Sprint(tc.want) {
				t.Fatalf("slept %v and answered %v; want %v and %v", f.slept, statuses, tc.wantSlept, tc.want)
			}
			if calls.Load() != tc.handled {
				t.Fatalf("handler ran %d times, want %d", calls.Load(), tc.handled)
			}
		})
	}
}
