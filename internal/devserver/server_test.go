package devserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/devserver"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var serverT0 = limiter.Micros(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))

// newServer is a dev gateway over memory tenants holding tenantJSON, the counters
// given (nil: memory) and a frozen clock; it returns the server and a key of the tenant.
func newServer(t *testing.T, tenantJSON string, counters store.Counters) (*devserver.Server, string) {
	t.Helper()
	tenants, key := seedTenants(t, tenantJSON)
	if counters == nil {
		counters = memory.NewCounters(memory.CountersConfig{})
	}
	now := func() int64 { return serverT0 }
	srv := wire(t, gate.Config{Tenants: tenants, Counters: counters, Now: now}, admin.Config{Tenants: tenants, Counters: counters, Now: now})
	return srv, key.Reveal()
}

// seedTenants returns memory tenants holding tenantJSON and a key of that tenant.
func seedTenants(t *testing.T, tenantJSON string) (*memory.Tenants, apikey.Key) {
	t.Helper()
	tenants := memory.NewTenants()
	tn, err := tenant.Decode([]byte(tenantJSON))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(t.Context(), tn); err != nil {
		t.Fatal(err)
	}
	key, rec := apikey.Generate(tn.ID, serverT0)
	if err := tenants.PutKey(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return tenants, key
}

// wire builds the dev server of a gate and an admin API configured as given, whose
// routes' resources are the admin API's tenants', as in `edgelimit dev`.
func wire(t *testing.T, gcfg gate.Config, acfg admin.Config) *devserver.Server {
	t.Helper()
	return wireTo(t, gcfg, acfg, nil)
}

// wireTo is wire with allowed requests proxied to upstream (nil: the echo), whose
// reservations the gate settles.
func wireTo(t *testing.T, gcfg gate.Config, acfg admin.Config, upstream *url.URL) *devserver.Server {
	t.Helper()
	g, err := gate.New(gcfg)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := authorizer.New(authorizer.Config{Gate: g, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Metrics: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	adm, err := admin.New(acfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := devserver.Config{Authorizer: auth, Admin: adm, Tenants: acfg.Tenants, Upstream: upstream}
	if upstream != nil {
		cfg.Settle = g.Settle
	}
	srv, err := devserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// get sends GET path with the key and decodes the JSON body.
func get(t *testing.T, srv http.Handler, path, key string) (*http.Response, map[string]any) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("x-api-key", key)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("GET %s: %d %s: %v", path, rec.Code, rec.Body, err)
	}
	return rec.Result(), body
}

// The echo of an allowed request and the 429 of a denied one carry the decision's
// numbers as JSON numbers and its flags as booleans, as the authorizer's context does
// (before, the 429 quoted every value, as a REST API's gateway response template does).
func TestEchoAnd429ShareJSONTypes(t *testing.T) {
	srv, key := newServer(t, `{"id": "one", "rules": [{"name": "one", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`, nil)
	resp, echo := get(t, srv, "/hello", key)
	if resp.StatusCode != 200 {
		t.Fatalf("first request: %d %v", resp.StatusCode, echo)
	}
	decision, _ := echo["authorizer"].(map[string]any)
	resp, denied := get(t, srv, "/hello", key)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second request: %d %v", resp.StatusCode, denied)
	}
	for _, tc := range []struct {
		body map[string]any
		keys []string
		want any
	}{
		{decision, []string{"limit", "remaining", "reset", "retryAfter", "delayMs"}, float64(0)},
		{decision, []string{"failOpen", "failClosed", "shadow"}, false},
		{decision, []string{"tenantId", "rule"}, ""},
		{denied, []string{"limit", "remaining", "reset", "retry_after"}, float64(0)},
		{denied, []string{"message", "rule"}, ""},
		{denied, []string{"fail_closed"}, false},
	} {
		for _, k := range tc.keys {
			if v, ok := tc.body[k]; !ok || !sameType(v, tc.want) {
				t.Errorf("%s = %#v in %v: want a JSON %T", k, v, tc.body, tc.want)
			}
		}
	}
	if denied["limit"] != decision["limit"] || denied["rule"] != decision["rule"] {
		t.Errorf("the 429 (%v) and the echo (%v) name another rule or limit", denied, decision)
	}
}

func sameType(a, b any) bool {
	switch b.(type) {
	case float64:
		_, ok := a.(float64)
		return ok
	case bool:
		_, ok := a.(bool)
		return ok
	case string:
		_, ok := a.(string)
		return ok
	}
	return false
}

// downStore is a counter store that is down.
type downStore struct{ store.Counters }

func (downStore) Decide(context.Context, []store.Counter, int64, int64, []limiter.Decision) error {
	return errors.New("connection refused")
}

// With the store down and the tenant failing closed, dev's 429 says that the store
// failed (X-RateLimit-Fail: closed, "fail_closed": true) and shows no limit's fields;
// a real denial carries neither mark.
func TestFailClosed429IsMarked(t *testing.T) {
	const one = `{"id": "one", "rules": [{"name": "one", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`
	srv, key := newServer(t, one, downStore{memory.NewCounters(memory.CountersConfig{})})
	resp, body := get(t, srv, "/hello", key)
	if resp.StatusCode != 429 || resp.Header.Get("X-RateLimit-Fail") != "closed" || body["fail_closed"] != true ||
		resp.Header.Get("X-RateLimit-Limit") != "" || body["limit"] != 0.0 || body["rule"] != "" || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("store down: %d %v %v", resp.StatusCode, resp.Header, body)
	}
	srv, key = newServer(t, one, nil)
	get(t, srv, "/hello", key)
	resp, body = get(t, srv, "/hello", key)
	if resp.StatusCode != 429 || resp.Header.Get("X-RateLimit-Fail") != "" || body["fail_closed"] != false || body["rule"] != "one" {
		t.Fatalf("over the limit: %d %v %v", resp.StatusCode, resp.Header, body)
	}
}
