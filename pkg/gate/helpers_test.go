package gate_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// t0 is the tests' first instant: 2026-06-01T00:00:00Z.
var t0 = limiter.Micros(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))

const sec = int64(time.Second / time.Microsecond)

// clock is an injected clock the tests move by hand.
type clock struct{ now atomic.Int64 }

func newClock() *clock       { c := &clock{}; c.now.Store(t0); return c }
func (c *clock) Now() int64  { return c.now.Load() }
func (c *clock) add(d int64) { c.now.Add(d) }

// fixture is a gate over memory stores, with a tenant "acme" and its key.
type fixture struct {
	g        *gate.Gate
	clock    *clock
	tenants  *memory.Tenants
	counters *countingStore
	key      string // acme's raw key
	keyID    string
}

const acmeJSON = `{"id": "acme", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 5, "period": "1m"}],
  "routes": [{"method": "POST", "resource": "/orders", "rules": [{"name": "orders", "algorithm": "fixed_window", "limit": 2, "period": "1s"}]}]}`

const publicJSON = `{"id": "public", "rules": [{"name": "ip", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
  "routes": [{"method": "GET", "resource": "/health", "anonymous": true, "rules": [{"name": "health", "algorithm": "fixed_window", "limit": 2, "period": "1s"}]},
             {"method": "GET", "resource": "/private", "rules": [{"name": "private", "algorithm": "fixed_window", "limit": 2, "period": "1s"}]}]}`

func newFixture(t testing.TB, tweak func(*gate.Config)) *fixture {
	t.Helper()
	f := &fixture{clock: newClock(), tenants: memory.NewTenants(), counters: &countingStore{next: memory.NewCounters(memory.CountersConfig{})}}
	f.createTenant(t, acmeJSON)
	f.createTenant(t, publicJSON)
	f.key, f.keyID = f.addKey(t, "acme")
	// A budget far above the memory store's latency, so a loaded machine's scheduling
	// cannot turn a decision into the fail mode's; the budget's tests set their own.
	cfg := gate.Config{Tenants: f.tenants, Counters: f.counters, Now: f.clock.Now, LatencyBudget: 10 * time.Second}
	if tweak != nil {
		tweak(&cfg)
	}
	g, err := gate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.g = g
	return f
}

func (f *fixture) createTenant(t testing.TB, js string) tenant.Tenant {
	t.Helper()
	tn, err := tenant.Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	created, err := f.tenants.Create(context.Background(), tn)
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func (f *fixture) addKey(t testing.TB, tenantID string) (raw, keyID string) {
	t.Helper()
	k, rec := apikey.Generate(tenantID, t0)
	if err := f.tenants.PutKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return k.Reveal(), k.ID()
}

func (f *fixture) check(t testing.TB, req gate.Request) gate.Result {
	t.Helper()
	res, err := f.g.Check(context.Background(), req)
	if err != nil {
		t.Fatalf("Check(%+v): %v", req, err)
	}
	return res
}

// countingStore counts the Decide calls it forwards; fail, when set, answers instead.
type countingStore struct {
	next  store.Counters
	calls atomic.Int64
	mu    sync.Mutex
	fail  func(ctx context.Context) error
}

func (s *countingStore) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	s.calls.Add(1)
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail != nil {
		return fail(ctx)
	}
	return s.next.Decide(ctx, cs, now, cost, outs)
}

func (s *countingStore) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	return s.next.Peek(ctx, key, set, now, outs)
}

func (s *countingStore) Reset(ctx context.Context, key string) error { return s.next.Reset(ctx, key) }

func (s *countingStore) setFail(fail func(ctx context.Context) error) {
	s.mu.Lock()
	s.fail = fail
	s.mu.Unlock()
}

// failingTenants wraps a tenant store; while failing is set, every read fails.
type failingTenants struct {
	store.Tenants
	failing atomic.Bool
	calls   atomic.Int64
}

var errDown = errors.New("store down")

func (s *failingTenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	s.calls.Add(1)
	if s.failing.Load() {
		return tenant.Tenant{}, errDown
	}
	return s.Tenants.Get(ctx, id)
}

func (s *failingTenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	s.calls.Add(1)
	if s.failing.Load() {
		return apikey.Record{}, errDown
	}
	return s.Tenants.LookupKey(ctx, hash)
}

func failMode(s string) tenant.FailMode { return tenant.FailMode(s) }

// Settle forwards to the wrapped store's Settle; a store without one gets
// gate.ErrNoSettler's meaning back.
func (s *countingStore) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	settler, ok := s.next.(store.Settler)
	if !ok {
		return false, errors.New("the wrapped store does not settle")
	}
	return settler.Settle(ctx, cs, st)
}
