package gate_test

import (
	"context"
	"fmt"
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

// planStore is a store's tenants and plans, as every store.Tenants is both.
type planStore interface {
	store.Tenants
	store.Plans
}

// countingPlans counts the writes made through it and the plan reads.
type countingPlans struct {
	planStore
	writes, planReads atomic.Int64
}

func (s *countingPlans) Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	s.writes.Add(1)
	return s.planStore.Create(ctx, t)
}

func (s *countingPlans) Replace(ctx context.Context, t tenant.Tenant, v int64) (tenant.Tenant, error) {
	s.writes.Add(1)
	return s.planStore.Replace(ctx, t, v)
}

func (s *countingPlans) PutKey(ctx context.Context, rec apikey.Record) error {
	s.writes.Add(1)
	return s.planStore.PutKey(ctx, rec)
}

func (s *countingPlans) CreatePlan(ctx context.Context, p tenant.Plan) (tenant.Plan, error) {
	s.writes.Add(1)
	return s.planStore.CreatePlan(ctx, p)
}

func (s *countingPlans) ReplacePlan(ctx context.Context, p tenant.Plan, v int64) (tenant.Plan, error) {
	s.writes.Add(1)
	return s.planStore.ReplacePlan(ctx, p, v)
}

func (s *countingPlans) GetPlan(ctx context.Context, id string) (tenant.Plan, error) {
	s.planReads.Add(1)
	return s.planStore.GetPlan(ctx, id)
}

// planBackend is one store TestPlanChangeMovesEveryTenant runs on, with the number of
// tenants it puts on the plan.
type planBackend struct {
	name    string
	env     func(t *testing.T) map[string]string // nil: memory
	tenants int
	budget  time.Duration // 0: the production 100ms
}

// DynamoDB Local (a JVM over SQLite, on cores other tests share) writes a tenant and
// its keys in tens of milliseconds: it runs with 200 tenants, not 1,000, and the
// budget TestModel gives it.
var planBackends = []planBackend{
	{"memory", nil, 1000, 0},
	{"redis", redisEnv, 1000, 0},
	{"upstash", upstashEnv, 1000, 0},
	{"dynamodb", dynamoEnv, 200, modelDynamoBudget},
}

func openPlanStores(t *testing.T, b planBackend) (planStore, store.Counters) {
	if b.env == nil {
		return memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})
	}
	st := buildStores(t, b.env(t))
	ps, ok := st.Tenants.(planStore)
	if !ok {
		t.Fatalf("%T keeps no plans", st.Tenants)
	}
	return ps, st.Counters
}

// TestPlanChangeMovesEveryTenant: one write of a plan changes the limit of every
// tenant on it. Each tenant's next decision after the config TTL uses the new limit
// and keeps the state its counter had (the rule's StateID is unchanged), and each of
// two gates reads the plan at most once per TTL, not once per tenant. The clock is
// the real one, jumped over the TTL as an idle gap would.
func TestPlanChangeMovesEveryTenant(t *testing.T) {
	for _, b := range planBackends {
		t.Run(b.name, func(t *testing.T) { testPlanChange(t, b) })
	}
}

func testPlanChange(t *testing.T, b planBackend) {
	raw, counters := openPlanStores(t, b)
	writer := &countingPlans{planStore: raw}
	ctx := t.Context()
	planID := uniqueID(t, "pro")
	hourly := func(limit int64) tenant.Plan {
		return tenant.Plan{ID: planID, Rules: []limiter.Rule{{Name: "hourly", Algorithm: limiter.FixedWindow, Limit: limit, Period: limiter.Every(time.Hour)}}}
	}
	plan, err := writer.CreatePlan(ctx, hourly(50))
	if err != nil {
		t.Fatal(err)
	}
	keys := createPlanTenants(t, writer, planID, b.tenants)

	// The clock: the real one, started just after an hour's boundary so that the jump
	// over the TTL stays within one window.
	var skip atomic.Int64
	hour := time.Hour.Microseconds()
	real := func() int64 { return limiter.Micros(time.Now()) }
	skip.Store(hour - real()%hour + 1e6)
	now := func() int64 { return real() + skip.Load() }
	const ttl = 10 * time.Second
	gates := make([]*gate.Gate, 2)
	readers := make([]*countingPlans, 2)
	for i := range gates {
		readers[i] = &countingPlans{planStore: raw}
		// What is tested is the plan's reach, not latency: a budget that DynamoDB Local
		// under -race on a loaded machine does not exceed (1 s once did).
		gates[i], err = gate.New(gate.Config{Tenants: readers[i], Counters: counters, Now: now, ConfigTTL: ttl, LatencyBudget: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
	}
	decideAll(t, gates, readers, keys, now, 50, 49)

	writer.writes.Store(0)
	if _, err := writer.ReplacePlan(ctx, hourly(80), plan.Version); err != nil {
		t.Fatal(err)
	}
	if n := writer.writes.Load(); n != 1 {
		t.Fatalf("the plan change took %d writes, want 1", n)
	}
	skip.Add(ttl.Microseconds())
	decideAll(t, gates, readers, keys, now, 80, 78)
}

// createPlanTenants creates n tenants on plan, each with a rule of its own and one or
// two keys, and returns one key of each.
func createPlanTenants(t *testing.T, s planStore, plan string, n int) []string {
	ctx := t.Context()
	prefix := uniqueID(t, "p")
	keys := make([]string, n)
	for i := range n {
		ten := tenant.Tenant{ID: fmt.Sprintf("%s-%04d", prefix, i), Plan: plan,
			Rules: []limiter.Rule{{Name: "burst", Algorithm: limiter.TokenBucket, Limit: 1000, Period: limiter.Every(time.Second)}}}
		if _, err := s.Create(ctx, ten); err != nil {
			t.Fatal(err)
		}
		for k := range 1 + i%2 {
			key, rec := apikey.Generate(ten.ID, limiter.Micros(time.Now()))
			if err := s.PutKey(ctx, rec); err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				keys[i] = key.Reveal()
			}
		}
	}
	return keys
}

// decideAll makes one request per key, alternating between the gates, and checks that
// each gets limit and remaining, and that each gate read the plan at most once per TTL
// begun during the requests.
func decideAll(t *testing.T, gates []*gate.Gate, readers []*countingPlans, keys []string, now func() int64, limit, remaining int64) {
	t.Helper()
	const ttl = int64(10e6)
	start := now()
	for i := range readers {
		readers[i].planReads.Store(0)
	}
	for i, key := range keys {
		res, err := gates[i%len(gates)].Check(t.Context(), gate.Request{APIKey: key, Method: "GET", Resource: "/"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != gate.Allowed || res.Rule != "hourly" || res.Decision.Limit != limit || res.Decision.Remaining != remaining {
			t.Fatalf("tenant %s: %v by %q, limit %d, remaining %d (%s): want allowed by hourly, limit %d, remaining %d",
				res.TenantID, res.Status, res.Rule, res.Decision.Limit, res.Decision.Remaining, res.Reason, limit, remaining)
		}
	}
	ttls := (now()-start)/ttl + 1
	t.Logf("%d tenants in %v: plan reads per gate %d and %d (TTLs begun: %d)", len(keys), time.Duration(now()-start)*time.Microsecond,
		readers[0].planReads.Load(), readers[1].planReads.Load(), ttls)
	for i, r := range readers {
		if n := r.planReads.Load(); n < 1 || n > ttls {
			t.Errorf("gate %d read the plan %d times for %d tenants, want 1 to %d (once per TTL begun)", i, n, len(keys)/len(gates), ttls)
		}
	}
}

// TestOverrideEndsAtItsInstant: a temporary override applies to the decision at
// until-1µs and not to the one at until, though the tenant's cache entry, loaded before,
// is within a TTL of an hour: the cache does not serve an override past its until.
func TestOverrideEndsAtItsInstant(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.ConfigTTL = time.Hour })
	until := time.UnixMicro(t0 + 30*sec).UTC().Format(time.RFC3339Nano)
	f.createTenant(t, `{"id": "sale", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
	  "overrides": [{"rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 300, "period": "1m"}], "until": "`+until+`"}]}`)
	key, _ := f.addKey(t, "sale")
	for _, step := range []struct {
		at    int64
		limit int64
	}{{t0, 300}, {t0 + 30*sec - 1, 300}, {t0 + 30*sec, 100}, {t0 + 40*sec, 100}} {
		f.clock.now.Store(step.at)
		res := f.check(t, gate.Request{APIKey: key, Method: "GET", Resource: "/"})
		if res.Status != gate.Allowed || res.Decision.Limit != step.limit {
			t.Errorf("at t0%+dµs: %v, limit %d, want allowed with limit %d", step.at-t0, res.Status, res.Decision.Limit, step.limit)
		}
	}
}

// TestPlanChangeWithinTTL: a gate keeps a plan for the TTL (the tenants' next
// decisions use their cached rules), and once the plan's TTL has passed every tenant on
// it gets the new version, also one whose own cache entry, loaded later, is still fresh
// (it is compiled again, with no new read of the tenant).
func TestPlanChangeWithinTTL(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	plan, err := f.tenants.CreatePlan(ctx, tenant.Plan{ID: "pro", Rules: []limiter.Rule{{Name: "minute", Algorithm: limiter.FixedWindow, Limit: 10, Period: limiter.Every(time.Minute)}}})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, id := range []string{"early", "late"} {
		f.createTenant(t, `{"id": "`+id+`", "plan": "pro"}`)
		keys[id], _ = f.addKey(t, id)
	}
	ttl := gate.DefaultConfigTTL.Microseconds()
	limit := func(id string) (int64, int) {
		res := f.check(t, gate.Request{APIKey: keys[id], Method: "GET", Resource: "/"})
		return res.Decision.Limit, res.ConfigCalls
	}
	if got, _ := limit("early"); got != 10 {
		t.Fatalf("limit %d, want the plan's 10", got)
	}
	f.clock.add(ttl / 2)
	if got, _ := limit("late"); got != 10 { // loads the tenant, not the plan
		t.Fatalf("limit %d, want the plan's 10", got)
	}
	plan.Rules[0].Limit = 20
	if _, err := f.tenants.ReplacePlan(ctx, plan, plan.Version); err != nil {
		t.Fatal(err)
	}
	f.clock.add(ttl/2 - 1)
	if got, _ := limit("late"); got != 10 {
		t.Errorf("within the plan's TTL: limit %d, want the cached 10", got)
	}
	f.clock.add(1)
	if got, calls := limit("late"); got != 20 || calls != 1 {
		t.Errorf("after the plan's TTL, the tenant's fresh: limit %d with %d store calls, want the plan's new 20 with 1 (the plan)", got, calls)
	}
	if got, _ := limit("early"); got != 20 {
		t.Errorf("after the TTL: limit %d, want the plan's new 20", got)
	}
}

// TestKeyRulesCountForTheKeyAlone: a key whose record holds its own limit for a
// key-scope rule of the tenant's plan gets that limit on its counter, another key of
// the tenant the plan's, and a key rule named as a tenant-scope rule changes nothing.
func TestKeyRulesCountForTheKeyAlone(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	perKey := limiter.Rule{Name: "per-key", Algorithm: limiter.FixedWindow, Limit: 10, Period: limiter.Every(time.Minute), Scope: limiter.ScopeKey}
	shared := limiter.Rule{Name: "shared", Algorithm: limiter.FixedWindow, Limit: 1000, Period: limiter.Every(time.Minute)}
	if _, err := f.tenants.CreatePlan(ctx, tenant.Plan{ID: "pro", Rules: []limiter.Rule{perKey, shared}}); err != nil {
		t.Fatal(err)
	}
	f.createTenant(t, `{"id": "keyed", "plan": "pro"}`)
	plain, _ := f.addKey(t, "keyed")
	big, rec := apikey.Generate("keyed", t0)
	rec.Rules = []limiter.Rule{{Name: "per-key", Algorithm: limiter.FixedWindow, Limit: 50, Period: limiter.Every(time.Minute)},
		{Name: "shared", Algorithm: limiter.FixedWindow, Limit: 1, Period: limiter.Every(time.Minute)}}
	if err := f.tenants.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	limitOf := func(key, rule string) int64 {
		res := f.check(t, gate.Request{APIKey: key, Method: "GET", Resource: "/"})
		for _, c := range res.Checks {
			for i := range c.Set.Len() {
				if c.Set.Rule(i).Name == rule {
					return c.Set.Rule(i).Limit
				}
			}
		}
		t.Fatalf("no rule %s for the key", rule)
		return 0
	}
	for _, tt := range []struct {
		key, rule string
		want      int64
	}{{big.Reveal(), "per-key", 50}, {plain, "per-key", 10}, {big.Reveal(), "shared", 1000}, {plain, "shared", 1000}, {big.Reveal(), "per-key", 50}} {
		if got := limitOf(tt.key, tt.rule); got != tt.want {
			t.Errorf("%s of key %s…: limit %d, want %d", tt.rule, tt.key[:12], got, tt.want)
		}
	}
}
