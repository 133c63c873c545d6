package redis

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// faultBudget is the gate's latency budget in the fault test: the default.
const faultBudget = gate.DefaultLatencyBudget

// TestServerStoppedMidRun decides through the gate, over Counters on a redis-server of
// the test's own, while the server is killed (SIGKILL) and started again on its port:
// while it is down every answer is the tenant's fail mode (closed: denied, open:
// allowed and flagged), within the budget plus 100 ms (the median of 5); once it is
// back, decisions resume on the same Client, the process never restarted.
func TestServerStoppedMidRun(t *testing.T) {
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{})
	tenants := memory.NewTenants()
	keys := map[tenant.FailMode]string{}
	for _, mode := range []tenant.FailMode{tenant.FailClosed, tenant.FailOpen} {
		t0 := tenant.Tenant{ID: "fail-" + string(mode), FailMode: mode,
			Rules: []limiter.Rule{{Name: "minute", Algorithm: limiter.FixedWindow, Limit: 1000, Period: limiter.Every(time.Minute)}}}
		if _, err := tenants.Create(t.Context(), t0); err != nil {
			t.Fatal(err)
		}
		k, rec := apikey.Generate(t0.ID, limiter.Micros(time.Now()))
		if err := tenants.PutKey(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
		keys[mode] = k.Reveal()
	}
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: NewCounters(newTestClient(t, Config{Addrs: []string{srv.Addr}}), CountersConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	check := func(mode tenant.FailMode) (gate.Result, time.Duration) {
		start := time.Now()
		res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/", APIKey: keys[mode]})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		return res, time.Since(start)
	}
	for _, mode := range []tenant.FailMode{tenant.FailClosed, tenant.FailOpen} {
		if res, _ := check(mode); res.Status != gate.Allowed || res.FailOpen {
			t.Fatalf("%s, server up: %+v", mode, res)
		}
	}

	srv.Stop()
	var latencies []time.Duration
	for range 5 {
		closed, d1 := check(tenant.FailClosed)
		open, d2 := check(tenant.FailOpen)
		latencies = append(latencies, d1, d2)
		if closed.Status != gate.Denied || !closed.FailedClosed {
			t.Fatalf("fail closed, server down: %+v", closed)
		}
		if open.Status != gate.Allowed || !open.FailOpen {
			t.Fatalf("fail open, server down: %+v", open)
		}
	}
	slices.Sort(latencies)
	t.Logf("server down: median %v, max %v (budget %v)", latencies[len(latencies)/2], latencies[len(latencies)-1], faultBudget)
	if median := latencies[len(latencies)/2]; median > faultBudget+100*time.Millisecond {
		t.Errorf("median answer %v with the server down, want at most the budget %v + 100ms", median, faultBudget)
	}

	srv.Start()
	for attempt := range 10 {
		res, _ := check(tenant.FailOpen)
		if res.Status == gate.Allowed && !res.FailOpen {
			return
		}
		t.Logf("attempt %d after the restart: %+v", attempt+1, res)
	}
	t.Fatal("the server is back but the answers are still the fail mode's")
}

// TestUnreachableAtStart: a Client made while its server is down (a cold start during
// an outage) is made all the same; its commands fail until the server is up, and then
// succeed, with no new Client.
func TestUnreachableAtStart(t *testing.T) {
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{})
	srv.Stop()
	c, err := NewClient(Config{Addrs: []string{srv.Addr}, DialTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("NewClient with the server down: %v, want a Client that connects later", err)
	}
	t.Cleanup(c.Close)
	counters := NewCounters(c, CountersConfig{})
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 5, "period": "1s"}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := store.DecideOne(ctx, counters, storetest.Key(t, "k"), set, at, 1); err == nil {
		t.Fatal("a decision with the server down succeeded")
	}
	srv.Start()
	if d, err := store.DecideOne(ctx, counters, storetest.Key(t, "k"), set, at, 1); err != nil || !d.Allowed {
		t.Fatalf("with the server up: %+v, %v", d, err)
	}
}
