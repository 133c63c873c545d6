package gate_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// modelBackend is one store TestModel runs on: its counters built by internal/config
// as the functions build them, with or without hot counters in front. share is its
// part of the run's time (see modelDuration); budget is the gate's latency budget, 0
// for the production default (100ms).
type modelBackend struct {
	name   string
	open   func(t *testing.T) map[string]string // the EDGELIMIT_* environment; nil: memory
	hot    bool
	share  time.Duration
	budget time.Duration
}

// modelDynamoBudget is the latency budget on DynamoDB Local: a JVM over SQLite on a
// machine whose cores other tests share answers many transactions in more than the
// production 100ms (at 100ms, whole runs had every case ended by the budget).
const modelDynamoBudget = time.Second

// modelBackends: memory first (it runs alone without -model.backends or CI=true),
// then every shared store cold and hot. Their CI shares sum to 2m50s
// (DynamoDB's runs last 10 to 15s longer: tables, the warm-up, the last case).
var modelBackends = []modelBackend{
	{"memory", nil, false, 20 * time.Second, 0},
	{"redis", redisEnv, false, 20 * time.Second, 0},
	{"redis-hot", redisEnv, true, 20 * time.Second, 0},
	{"upstash", upstashEnv, false, 20 * time.Second, 0},
	{"upstash-hot", upstashEnv, true, 20 * time.Second, 0},
	{"dynamodb", dynamoEnv, false, 35 * time.Second, modelDynamoBudget},
	{"dynamodb-hot", dynamoEnv, true, 35 * time.Second, modelDynamoBudget},
}

// modelStores are what one backend's cases share: the gate's counters and the admin
// API's (the shared store itself: the admin function has no leases of its own), and
// the hot counters when they are on.
type modelStores struct {
	gate, admin store.Counters
	hot         *hotcounter.Store
}

// openModel builds b's counters through config.Build.
func openModel(t *testing.T, b modelBackend) modelStores {
	if b.open == nil {
		c := memory.NewCounters(memory.CountersConfig{})
		return modelStores{gate: c, admin: c}
	}
	env := b.open(t)
	env[config.EnvHotCounters] = map[bool]string{true: "on", false: "off"}[b.hot]
	st := buildStores(t, env)
	s := modelStores{gate: st.Counters, admin: st.Counters}
	if h, ok := st.Counters.(*hotcounter.Store); ok {
		s.hot, s.admin = h, h.Next()
	}
	if s.hot == nil && b.hot {
		t.Fatalf("%s: config.Build put no hot counters in front", b.name)
	}
	return s
}

// buildStores builds the stores of env through config.Build, as the functions do,
// creating DynamoDB's tables first, and warms them up.
func buildStores(t *testing.T, env map[string]string) *config.Stores {
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if cfg.Backend == config.BackendDynamoDB {
		if _, err := cfg.CreateTables(ctx, config.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := cfg.Build(ctx, config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WarmUp(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

func redisEnv(t *testing.T) map[string]string {
	return map[string]string{config.EnvBackend: config.BackendRedis, config.EnvRedisAddr: testenv.RedisAddr(t)}
}

func upstashEnv(t *testing.T) map[string]string {
	base, token := testenv.UpstashURL(t)
	return map[string]string{config.EnvBackend: config.BackendUpstash, config.EnvUpstashURL: base, config.EnvUpstashToken: token}
}

// dynamoEnv names fresh tables on DynamoDB Local, which openModel creates.
func dynamoEnv(t *testing.T) map[string]string {
	endpoint := testenv.DynamoDBURL(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "edgelimittest")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "edgelimittest")
	t.Setenv("AWS_REGION", "us-east-1")
	id := uniqueID(t, "model")
	return map[string]string{config.EnvBackend: config.BackendDynamoDB, config.EnvTenantsTable: id + "-tenants",
		config.EnvCountersTable: id + "-counters", config.EnvDynamoDBEndpoint: endpoint}
}

// modelRunsAll reports whether TestModel runs every backend: with -model.backends, and
// always in CI, where a backend whose service is not configured fails (testenv.Require).
func modelRunsAll() bool { return *modelAll || os.Getenv("CI") == "true" }

// modelDuration is how long TestModel runs on b: -model.duration, else b's share in
// CI, a tenth of it with -short, and half of it otherwise.
func modelDuration(b modelBackend) time.Duration {
	switch {
	case *modelFor > 0:
		return *modelFor
	case os.Getenv("CI") == "true":
		return b.share
	case testing.Short():
		return b.share / 10
	}
	return b.share / 2
}

// TestModelBackends: with CI=true TestModel runs every backend, memory and each
// service's cold and hot runs (a service not configured then fails the run).
func TestModelBackends(t *testing.T) {
	t.Setenv("CI", "true")
	if !modelRunsAll() {
		t.Fatal("CI=true does not run every backend")
	}
	runs := map[string]bool{}
	for _, b := range modelBackends {
		runs[b.name] = b.hot
	}
	for name, hot := range map[string]bool{"memory": false, "redis": false, "redis-hot": true, "upstash": false,
		"upstash-hot": true, "dynamodb": false, "dynamodb-hot": true} {
		if h, ok := runs[name]; !ok || h != hot {
			t.Errorf("no %s run (hot counters %v) among %v", name, hot, runs)
		}
	}
}
