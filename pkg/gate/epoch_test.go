package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/redis"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestEpochNoticesARestartedRedis: a redis-server of the test's own, without
// persistence, holds a tenant and its key; the gate caches the key (config TTL 10 s)
// and remembers the store's epoch. The server is killed and started again, empty: the
// next epoch check that reads the marker (the first ones may fail while the client
// reconnects, reporting no change) notices, writes one line with the stable message that also counts
// the metric once, and drops the gate's caches, so that the key, still cached a moment
// before, is Unauthorized at once, not for the rest of its TTL. A check after that
// reports no change.
func TestEpochNoticesARestartedRedis(t *testing.T) {
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{})
	ctx := context.Background()
	tenants, key := tenantOnRedis(t, srv.Addr)
	var out bytes.Buffer
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), LatencyBudget: time.Second, EpochLog: &out})
	if err != nil {
		t.Fatal(err)
	}
	gate.StopEpochPolling(g) // this test makes every check (TestEpochPolledOncePerTTL: the decisions' own)
	if changed, err := g.CheckEpoch(ctx); changed || err != nil {
		t.Fatalf("the first read: changed %v, %v", changed, err)
	}
	check := func() gate.Result {
		t.Helper()
		res, err := g.Check(ctx, gate.Request{Method: "GET", Resource: "/", APIKey: key.Reveal()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := check(); res.Status != gate.Allowed {
		t.Fatalf("before the restart: %+v", res)
	}
	srv.Stop()
	srv.Start()
	if res := check(); res.Status != gate.Allowed || res.ConfigCalls != 0 {
		t.Fatalf("after the restart, before the check: %+v, want the cached key allowed (what the check is for)", res)
	}
	// The client reconnects: a failed read reports no change, and is made again until
	// one reads the marker (10 s at most).
	var changed bool
	attempt := 0
	testenv.WaitFor(t, 10*time.Second, "an epoch read after the restart", func() bool {
		attempt++
		changed, err = g.CheckEpoch(ctx)
		if err != nil {
			t.Logf("check %d after the restart: %v", attempt, err)
		}
		return err == nil
	})
	if !changed || err != nil {
		t.Fatalf("the first check that read the marker after the restart: changed %v, %v", changed, err)
	}
	res := check()
	for attempt := 1; (res.FailedClosed || res.FailOpen) && attempt < 10; attempt++ { // a pooled connection still broken
		t.Logf("lookup %d after the check: %s", attempt, res.Reason)
		res = check()
	}
	if res.Status != gate.Unauthorized {
		t.Fatalf("after the check: %+v, want the lost tenant's key Unauthorized", res)
	}
	if changed, err := g.CheckEpoch(ctx); changed || err != nil {
		t.Fatalf("the check after that: changed %v, %v; want no change", changed, err)
	}
	checkEpochLine(t, out.String())
}

// tenantOnRedis stores a tenant and a key of it on the redis-server at addr, and
// returns the store and the key.
func tenantOnRedis(t *testing.T, addr string) (*redis.Tenants, apikey.Key) {
	t.Helper()
	client, err := redis.NewClient(redis.Config{Addrs: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	tenants, err := redis.NewTenants(client, redis.TenantsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tn, err := tenant.Decode([]byte(`{"id": "lost", "rules": [{"algorithm": "fixed_window", "limit": 100, "period": "1m"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(context.Background(), tn); err != nil {
		t.Fatal(err)
	}
	key, rec := apikey.Generate(tn.ID, 1)
	if err := tenants.PutKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return tenants, key
}

// checkEpochLine requires lines to be one epoch-change line: the stable message, and
// an EMF document counting the metric once in the namespace edgelimit.
func checkEpochLine(t *testing.T, lines string) {
	t.Helper()
	if n := strings.Count(lines, "\n"); n != 1 {
		t.Fatalf("%d lines, want 1:\n%s", n, lines)
	}
	var doc struct {
		AWS struct {
			CloudWatchMetrics []struct {
				Namespace string
				Metrics   []struct{ Name string }
			}
		} `json:"_aws"`
		Msg   string `json:"msg"`
		Count int    `json:"StoreEpochChanged"`
	}
	if err := json.Unmarshal([]byte(lines), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.AWS.CloudWatchMetrics
	if doc.Msg != gate.EpochChangedMessage || doc.Count != 1 || len(m) != 1 || m[0].Namespace != "edgelimit" ||
		len(m[0].Metrics) != 1 || m[0].Metrics[0].Name != gate.EpochChangedMetric {
		t.Fatalf("the line: %s", lines)
	}
}

// epochReads is a tenant store with an epoch marker that counts its reads.
type epochReads struct {
	*memory.Tenants
	reads chan string
	id    atomic.Value // string
}

func (e *epochReads) Epoch(context.Context) (string, error) {
	id := e.id.Load().(string)
	e.reads <- id
	return id, nil
}

// TestEpochPolledOncePerTTL: decisions check the epoch themselves, in the background:
// the first decision reads it, the decisions within the config TTL after it do not,
// and the first one past the TTL reads it again and, the marker changed, drops the
// caches and writes the line.
func TestEpochPolledOncePerTTL(t *testing.T) {
	ts := &epochReads{Tenants: memory.NewTenants(), reads: make(chan string, 10)}
	ts.id.Store("first")
	var now atomic.Int64
	now.Store(1_800_000_000_000_000)
	out := make(lineWriter, 1)
	g, err := gate.New(gate.Config{Tenants: ts, Counters: memory.NewCounters(memory.CountersConfig{}), Now: now.Load, EpochLog: out})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	anonymous := gate.Request{Method: "GET", Resource: "/"}
	g.Check(ctx, anonymous)
	<-ts.reads // the first decision's read
	for range 5 {
		now.Add(1_000_000) // within the 10 s TTL
		g.Check(ctx, anonymous)
	}
	ts.id.Store("second")
	now.Add(6_000_000)    // past it
	gate.WaitEpochPoll(g) // the first read's check has ended: the next one may start
	g.Check(ctx, anonymous)
	if id := <-ts.reads; id != "second" || len(ts.reads) != 0 {
		t.Fatalf("read %q, %d more: want one read past the TTL", id, len(ts.reads))
	}
	select {
	case line := <-out:
		checkEpochLine(t, line)
	case <-time.After(10 * time.Second):
		t.Fatal("no epoch-change line after the changed read")
	}
}

// A check made by the caller (as a function's init may) puts the decisions' first
// check a TTL later: the first decisions make no read of their own.
func TestEpochCheckedByTheCallerPostponesThePoll(t *testing.T) {
	ts := &epochReads{Tenants: memory.NewTenants(), reads: make(chan string, 10)}
	ts.id.Store("first")
	var now atomic.Int64
	now.Store(1_800_000_000_000_000)
	g, err := gate.New(gate.Config{Tenants: ts, Counters: memory.NewCounters(memory.CountersConfig{}), Now: now.Load, ConfigTTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if changed, err := g.CheckEpoch(ctx); changed || err != nil {
		t.Fatalf("the caller's read: changed %v, %v", changed, err)
	}
	<-ts.reads
	anonymous := gate.Request{Method: "GET", Resource: "/"}
	for range 5 {
		now.Add(1_000_000) // within the TTL
		g.Check(ctx, anonymous)
		gate.WaitEpochPoll(g)
	}
	if n := len(ts.reads); n != 0 {
		t.Fatalf("%d reads by the decisions within the TTL of the caller's, want 0", n)
	}
	now.Add(6_000_000) // past it
	g.Check(ctx, anonymous)
	if id := <-ts.reads; id != "first" {
		t.Fatalf("read %q past the TTL", id)
	}
}

// lineWriter hands each Write to a reader, as a string.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}
