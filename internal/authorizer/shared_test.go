package authorizer_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/redis"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// sharedBackend is a shared store of the test services: where it listens, how to
// seed its tenant store, and the environment that points the authorizer at it.
type sharedBackend struct {
	name string
	// setup returns the service's host:port, a tenant store to seed, and the
	// environment for an authorizer reaching the service at baseURL.
	setup func(t *testing.T) (target string, seed store.Tenants, env func(baseURL string) map[string]string)
}

var sharedBackends = []sharedBackend{
	{"dynamodb", setupDynamoDB},
	{"upstash", setupUpstash},
}

// redisBackend is Redis over RESP, which the fault tests cover too (the denial cache's
// test counts HTTP requests, which RESP makes none of).
var redisBackend = sharedBackend{"redis", setupRedis}

func setupRedis(t *testing.T) (string, store.Tenants, func(string) map[string]string) {
	addr := testenv.RedisAddr(t)
	client, err := redis.NewClient(redis.Config{Addrs: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	prefix := "authz-" + suffix(t) + ":"
	tenants, err := redis.NewTenants(client, redis.TenantsConfig{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	env := func(baseURL string) map[string]string {
		return map[string]string{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": hostPort(t, baseURL), "EDGELIMIT_REDIS_PREFIX": prefix}
	}
	return addr, tenants, env
}

func suffix(t testing.TB) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func hostPort(t testing.TB, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		t.Fatalf("service URL %q: %v", raw, err)
	}
	return u.Host
}

func setupDynamoDB(t *testing.T) (string, store.Tenants, func(string) map[string]string) {
	endpoint := testenv.DynamoDBURL(t)
	ctx := testCtx(t)
	client := testenv.DynamoDBLocal(endpoint, "local") // -sharedDb: the tables the authorizer sees
	tenants, counters := "authz-tenants-"+suffix(t), "authz-counters-"+suffix(t)
	if err := dynamodb.CreateTable(ctx, client, tenants, dynamodb.TenantsTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := dynamodb.CreateTable(ctx, client, counters, dynamodb.CountersTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	env := func(baseURL string) map[string]string {
		return map[string]string{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_TENANTS_TABLE": tenants,
			"EDGELIMIT_COUNTERS_TABLE": counters, "AWS_ENDPOINT_URL_DYNAMODB": baseURL}
	}
	return hostPort(t, endpoint), dynamodb.NewTenants(client, tenants), env
}

func setupUpstash(t *testing.T) (string, store.Tenants, func(string) map[string]string) {
	base, token := testenv.UpstashURL(t)
	client, err := upstashrest.NewClient(upstashrest.Config{URL: base, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	prefix := "authz-" + suffix(t) + ":"
	env := func(baseURL string) map[string]string {
		return map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": baseURL,
			"UPSTASH_REDIS_REST_TOKEN": token, "EDGELIMIT_UPSTASH_PREFIX": prefix}
	}
	return hostPort(t, base), upstash.NewTenants(client, upstash.TenantsConfig{Prefix: prefix}), env
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// seedTenant creates a tenant with a unique id from js (its id is replaced) and one
// key, and returns the raw key.
func seedTenant(t testing.TB, s store.Tenants, js string) (id, key string) {
	t.Helper()
	tn, err := tenant.Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	tn.ID = tn.ID + "-" + suffix(t)
	if _, err := s.Create(testCtx(t), tn); err != nil {
		t.Fatal(err)
	}
	k, rec := apikey.Generate(tn.ID, 0)
	if err := s.PutKey(testCtx(t), rec); err != nil {
		t.Fatal(err)
	}
	return tn.ID, k.Reveal()
}

// handlerFromEnv builds the authorizer as the function's main does, from env, sending
// its HTTP requests through transport.
func handlerFromEnv(t testing.TB, env map[string]string, transport http.RoundTripper) *authorizer.Handler {
	t.Helper()
	return handlerOf(t, gateFromEnv(t, env, transport))
}

// gateFromEnv builds the gate as the function's main does, from env, sending its HTTP
// requests through transport.
func gateFromEnv(t testing.TB, env map[string]string, transport http.RoundTripper) *gate.Gate {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	st, err := cfg.Build(testCtx(t), config.Options{HTTPClient: &http.Client{Transport: transport}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.New(cfg.GateConfig(st))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// handlerOf is the authorizer of g, logging nowhere.
func handlerOf(t testing.TB, g *gate.Gate) *authorizer.Handler {
	t.Helper()
	h, err := authorizer.New(authorizer.Config{Gate: g, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Metrics: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// restWithKey is the sample REST event with key in its key header.
func restWithKey(t testing.TB, key string) []byte {
	t.Helper()
	ev := restEvent(t, "rest-valid-key")
	ev.Headers["X-Api-Key"] = key
	ev.MultiValueHeaders = nil
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// answer is what a REST response says.
type answer struct {
	effect string
	ctx    map[string]any
	err    error
}

func invokeREST(h *authorizer.Handler, payload []byte) answer {
	out, err := h.Invoke(context.Background(), payload)
	if err != nil {
		return answer{err: err}
	}
	var resp struct {
		PolicyDocument struct{ Statement []struct{ Effect string } }
		Context        map[string]any
	}
	if err := json.Unmarshal(out, &resp); err != nil || len(resp.PolicyDocument.Statement) != 1 {
		return answer{err: err}
	}
	return answer{effect: resp.PolicyDocument.Statement[0].Effect, ctx: resp.Context}
}
