package admin_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// stores is a tenant store and a counter store of one backend.
type stores struct {
	tenants  store.Tenants
	counters store.Counters
}

// backendsUnderTest are the backends every handler test runs against. DynamoDB Local
// and the local Upstash server skip without their services (and fail under CI).
var backendsUnderTest = []struct {
	name string
	open func(t *testing.T) stores
}{
	{"memory", func(*testing.T) stores {
		return stores{memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})}
	}},
	{"dynamodb", openDynamoDB},
	{"upstash", openUpstash},
}

// forEachBackend runs test once per backend, as subtests.
func forEachBackend(t *testing.T, test func(t *testing.T, e *env)) {
	for _, b := range backendsUnderTest {
		t.Run(b.name, func(t *testing.T) { test(t, newEnv(t, b.open(t))) })
	}
}

// openDynamoDB makes a tenants table and a counters table of their own in DynamoDB
// Local, deleted after the test.
func openDynamoDB(t *testing.T) stores {
	url := testenv.DynamoDBURL(t)
	client := testenv.DynamoDBLocal(url, "edgelimittest")
	suffix := randomHex(6)
	tenants, counters := "admin-tenants-"+suffix, "admin-counters-"+suffix
	if err := dynamodb.CreateTable(t.Context(), client, tenants, dynamodb.TenantsTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := dynamodb.CreateTable(t.Context(), client, counters, dynamodb.CountersTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, table := range []string{tenants, counters} {
			if err := deleteTable(context.Background(), client, table); err != nil {
				t.Errorf("deleting table %s: %v", table, err)
			}
		}
	})
	// The tests inject instants of 2026 that may be in the past of the real clock, and
	// the counters' TTL attribute is absolute: DynamoDB Local's TTL sweeper, which reads
	// the real clock, would delete counters in the middle of a test (a second quota out
	// of nowhere). A margin of decades keeps them.
	return stores{dynamodb.NewTenants(client, tenants), dynamodb.NewCounters(client, counters, dynamodb.CountersConfig{TTLMargin: 50 * 365 * 24 * time.Hour})}
}

// openUpstash uses the local Upstash-compatible server, under a key prefix (tenants)
// and a counter-key namespace (counters) of the test's own.
func openUpstash(t *testing.T) stores {
	url, token := testenv.UpstashURL(t)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ns := "admin-test-" + randomHex(6) + ":"
	return stores{
		upstash.NewTenants(c, upstash.TenantsConfig{Prefix: "el:t:" + ns}),
		namespaced{upstash.NewCounters(c, upstash.CountersConfig{}), ns},
	}
}

// namespaced prefixes every counter key, so that tests sharing a Redis never share a
// counter; the handler and the gate both go through it, so they agree on the keys.
type namespaced struct {
	store.Counters
	ns string
}

func (s namespaced) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	prefixed := make([]store.Counter, len(cs))
	for i, c := range cs {
		prefixed[i] = store.Counter{Key: s.ns + c.Key, Set: c.Set}
	}
	return s.Counters.Decide(ctx, prefixed, now, cost, outs)
}

func (s namespaced) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	return s.Counters.Peek(ctx, s.ns+key, set, now, outs)
}

func (s namespaced) Reset(ctx context.Context, key string) error {
	return s.Counters.Reset(ctx, s.ns+key)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// clock is an injected clock in microseconds.
type clock struct{ us atomic.Int64 }

func (c *clock) Now() int64              { return c.us.Load() }
func (c *clock) Set(t time.Time)         { c.us.Store(limiter.Micros(t)) }
func (c *clock) Advance(d time.Duration) { c.us.Add(d.Microseconds()) }
func (c *clock) Time() time.Time         { return limiter.Time(c.Now()) }

// t0 is the instant tests start at unless they set another.
var t0 = time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)

// env is a Handler over one backend's stores, with an injected clock, a gate over the
// same stores (for spending quota as the authorizer does), and the OpenAPI document
// that every exchange is checked against.
type env struct {
	t       *testing.T
	st      stores
	clock   *clock
	h       *admin.Handler
	spec    *spec
	newKeys []apikey.Key // when set, NewKey hands these out in order
}

func newEnv(t *testing.T, st stores) *env {
	e := &env{t: t, st: st, clock: &clock{}, spec: loadSpec(t)}
	e.clock.Set(t0)
	h, err := admin.New(admin.Config{Tenants: st.tenants, Counters: st.counters, Now: e.clock.Now, NewKey: e.nextKey})
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	return e
}

func (e *env) nextKey() apikey.Key {
	if len(e.newKeys) == 0 {
		return apikey.New()
	}
	k := e.newKeys[0]
	e.newKeys = e.newKeys[1:]
	return k
}

// gate returns a gate over the env's stores and clock; ttl < 0 turns its cache off.
func (e *env) gate(ttl time.Duration, anonymous string) *gate.Gate {
	g, err := gate.New(gate.Config{Tenants: e.st.tenants, Counters: e.st.counters, Now: e.clock.Now,
		ConfigTTL: ttl, AnonymousTenant: anonymous, LatencyBudget: 10 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// response is one answer of the handler.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request through ServeHTTP and checks the exchange against the OpenAPI
// document: the response always, the request when the handler accepted it (2xx) or
// refused it for the state it found (404 of a tenant, 409, 412). headers are name,
// value pairs.
func (e *env) do(method, path, body string, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequestWithContext(e.t.Context(), method, "http://admin.test"+path, rd)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	if body != "" && req.Header.Get("Content-Type") == "" && method != http.MethodPatch {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	resp := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	e.spec.check(e.t, method, path, body, headers, resp)
	return resp
}

// json decodes the body into v.
func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
}

// want fails the test unless the status is status.
func (r response) want(t *testing.T, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	return r
}

// problem checks that the response is a problem of status and slug naming field
// (field "" means any), and returns it.
func (r response) problem(t *testing.T, status int, slug, field string) admin.Problem {
	t.Helper()
	r.want(t, status)
	if ct := r.header.Get("Content-Type"); ct != admin.ProblemContentType {
		t.Fatalf("Content-Type %q, want %s", ct, admin.ProblemContentType)
	}
	var p admin.Problem
	r.json(t, &p)
	if p.Status != status || p.Type != admin.ProblemTypeBase+slug || p.Title == "" || p.Detail == "" {
		t.Fatalf("problem %+v, want status %d type …%s", p, status, slug)
	}
	if field != "" && p.Field != field {
		t.Fatalf("problem names field %q, want %q: %+v", p.Field, field, p)
	}
	return p
}

// tenant decodes a tenant answer.
func (r response) tenant(t *testing.T) tenant.Tenant {
	t.Helper()
	tn, err := tenant.Decode(r.body)
	if err != nil {
		t.Fatalf("tenant %s: %v", r.body, err)
	}
	return tn
}

// snapshot renders every tenant and key record the store holds, to show that a
// refused request wrote nothing.
func (e *env) snapshot() string {
	e.t.Helper()
	ctx := e.t.Context()
	var out []any
	token := ""
	for range 1000 {
		ts, next, err := e.st.tenants.List(ctx, store.MaxListLimit, token)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, tn := range ts {
			keys, err := e.st.tenants.ListKeys(ctx, tn.ID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				e.t.Fatal(err)
			}
			out = append(out, tn, keys)
		}
		if token = next; token == "" {
			b, _ := json.Marshal(out)
			return string(b)
		}
	}
	e.t.Fatal("listing never ended")
	return ""
}

// create makes a tenant from JSON through the API and returns it.
func (e *env) create(id, body string) tenant.Tenant {
	e.t.Helper()
	return e.do("PUT", "/tenants/"+id, body).want(e.t, http.StatusCreated).tenant(e.t)
}

// issueKey makes a key for the tenant through the API and returns the raw key and
// its key id.
func (e *env) issueKey(id string) (raw, keyID string) {
	e.t.Helper()
	var k struct {
		Key   string `json:"key"`
		KeyID string `json:"key_id"`
	}
	e.do("POST", "/tenants/"+id+"/keys", "").want(e.t, http.StatusCreated).json(e.t, &k)
	return k.Key, k.KeyID
}

// usage reads a key's usage through the API.
func (e *env) usage(id, keyID string) usageBody {
	e.t.Helper()
	var u usageBody
	e.do("GET", "/tenants/"+id+"/usage?key_id="+keyID, "").want(e.t, http.StatusOK).json(e.t, &u)
	return u
}

// usageBody mirrors the usage answer.
type usageBody struct {
	TenantID   string `json:"tenant_id"`
	KeyID      string `json:"key_id"`
	IP         string `json:"ip"`
	Generation int64  `json:"generation"`
	Timezone   string `json:"timezone"`
	At         string `json:"at"`
	Rules      []struct {
		Route       *string      `json:"route"`
		Rule        limiter.Rule `json:"rule"`
		Capacity    int64        `json:"capacity"`
		Used        int64        `json:"used"`
		Remaining   int64        `json:"remaining"`
		Reset       string       `json:"reset"`
		ResetLocal  string       `json:"reset_local"`
		WindowStart string       `json:"window_start"`
		WindowEnd   string       `json:"window_end"`
	} `json:"rules"`
	Pending []struct {
		Unit           string `json:"unit"`
		Timezone       string `json:"timezone"`
		Effective      string `json:"effective"`
		EffectiveLocal string `json:"effective_local"`
	} `json:"pending_zone_changes"`
}

// rule returns the usage of the rule named name on route ("" for tenant-wide).
func (u usageBody) rule(t *testing.T, route, name string) int {
	t.Helper()
	for i, r := range u.Rules {
		if r.Rule.Name == name && (r.Route == nil && route == "" || r.Route != nil && *r.Route == route) {
			return i
		}
	}
	t.Fatalf("no rule %q on route %q in %+v", name, route, u.Rules)
	return -1
}

// check spends one request of the key through the gate at the env's clock.
func (e *env) check(g *gate.Gate, raw, method, resource string) gate.Result {
	e.t.Helper()
	res, err := g.Check(e.t.Context(), gate.Request{APIKey: raw, Method: method, Resource: resource})
	if err != nil {
		e.t.Fatal(err)
	}
	if res.FailOpen || res.FailedClosed {
		e.t.Fatalf("the gate failed over: %+v", res)
	}
	return res
}

// rfc3339 formats an instant as the API does.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
