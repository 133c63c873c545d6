package gate_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// bothTenants is a failingTenants that also offers store.KeyTenantLookup (LookupKey
// then Get of its store, as one call) and counts the calls of each read.
type bothTenants struct {
	failingTenants
	both, lookups, gets atomic.Int64
}

var _ store.KeyTenantLookup = (*bothTenants)(nil)

func (s *bothTenants) LookupKeyTenant(ctx context.Context, hash string) (apikey.Record, tenant.Tenant, error) {
	s.both.Add(1)
	if s.failing.Load() {
		return apikey.Record{}, tenant.Tenant{}, errDown
	}
	rec, err := s.Tenants.LookupKey(ctx, hash)
	if err != nil {
		return apikey.Record{}, tenant.Tenant{}, err
	}
	t, err := s.Tenants.Get(ctx, rec.TenantID)
	return rec, t, err
}

func (s *bothTenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	s.lookups.Add(1)
	return s.failingTenants.LookupKey(ctx, hash)
}

func (s *bothTenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	s.gets.Add(1)
	return s.failingTenants.Get(ctx, id)
}

// hidingTenants is a store whose Get does not find the tenant hidden names, while its
// key records stay: a key found whose tenant is gone.
type hidingTenants struct {
	store.Tenants
	hidden atomic.Pointer[string]
}

func (s *hidingTenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	if h := s.hidden.Load(); h != nil && *h == id {
		return tenant.Tenant{}, store.ErrNotFound
	}
	return s.Tenants.Get(ctx, id)
}

func newGate(t *testing.T, ts gate.Tenants, now func() int64) *gate.Gate {
	t.Helper()
	g, err := gate.New(gate.Config{Tenants: ts, Counters: memory.NewCounters(memory.CountersConfig{}), Now: now,
		ConfigTTL: 10 * time.Second, MaxStale: time.Minute, FailMode: tenant.FailOpen})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A key that is not cached costs one tenant store call when the store offers
// LookupKeyTenant: the tenant comes with the record, and neither LookupKey nor Get is
// called; a cached key costs none.
func TestKeyAndTenantInOneCall(t *testing.T) {
	f := newFixture(t, nil)
	ts := &bothTenants{failingTenants: failingTenants{Tenants: f.tenants}}
	g := newGate(t, ts, f.clock.Now)
	second, _ := f.addKey(t, "acme")
	check := func(key string, wantCalls int) {
		t.Helper()
		res, err := g.Check(t.Context(), gate.Request{Method: "GET", Resource: "/", APIKey: key})
		if err != nil || res.Status != gate.Allowed || res.TenantID != "acme" || res.ConfigCalls != wantCalls {
			t.Fatalf("Check: %v for %q after %d config calls (%v), want allowed by acme after %d", res.Status, res.TenantID, res.ConfigCalls, err, wantCalls)
		}
	}
	check(f.key, 1)
	check(f.key, 0)
	check(second, 1) // the tenant is fresh, but only the record tells its id
	f.clock.add(10 * sec)
	check(f.key, 1)
	if b, l, g := ts.both.Load(), ts.lookups.Load(), ts.gets.Load(); b != 3 || l != 0 || g != 0 {
		t.Fatalf("%d LookupKeyTenant, %d LookupKey, %d Get; want 3, 0, 0", b, l, g)
	}
}

// observed is what a step of TestKeyTenantLookupAnswersAsTwoReads compares.
type observed struct {
	Status            gate.Status
	Reason, TenantID  string
	FailOpen          bool
	Limit, Remaining  int64
	SameSet, HasCalls bool
}

// A gate over a store that offers LookupKeyTenant answers every step of a scenario
// (unknown keys, revocation, the TTL, stale entries through an outage and past
// MaxStale, a new version of the rules, a tenant gone while its key remains, negative
// caching) exactly as a gate over LookupKey then Get, with fewer calls in all.
func TestKeyTenantLookupAnswersAsTwoReads(t *testing.T) {
	f := newFixture(t, nil)
	hiding := &hidingTenants{Tenants: f.tenants}
	two := &failingTenants{Tenants: hiding}
	one := &bothTenants{failingTenants: failingTenants{Tenants: hiding}}
	gates := []*gate.Gate{newGate(t, two, f.clock.Now), newGate(t, one, f.clock.Now)}
	unknown := "elk_zzzzzzzz_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	revocable, revocableID := f.addKey(t, "acme")
	ctx := context.Background()
	acme := "acme"
	steps := []struct {
		name   string
		before func()
		key    string
	}{
		{"known key", nil, f.key},
		{"cached", func() { f.clock.add(sec) }, f.key},
		{"unknown key", nil, unknown},
		{"unknown key, cached", nil, unknown},
		{"revocable key", nil, revocable},
		{"revoked, within the TTL", func() { must(t, f.tenants.RevokeKey(ctx, "acme", revocableID, t0)) }, revocable},
		{"revoked, past the TTL", func() { f.clock.add(10 * sec) }, revocable},
		{"reloaded, same version", nil, f.key},
		{"store down, stale", func() { setFailing(true, two, &one.failingTenants); f.clock.add(69 * sec) }, f.key},
		{"store down, too stale", func() { f.clock.add(2 * sec) }, f.key},
		{"store back", func() { setFailing(false, two, &one.failingTenants) }, f.key},
		{"new version, within the TTL", func() { raiseLimit(t, f.tenants) }, f.key},
		{"new version, past the TTL", func() { f.clock.add(10 * sec) }, f.key},
		{"tenant gone, within the TTL", func() { hiding.hidden.Store(&acme) }, f.key},
		{"tenant gone, past the TTL", func() { f.clock.add(10 * sec) }, f.key},
		{"tenant gone, cached", func() { f.clock.add(sec) }, f.key},
		{"tenant back, cached as gone", func() { hiding.hidden.Store(nil) }, f.key},
		{"tenant back, past the TTL", func() { f.clock.add(10 * sec) }, f.key},
	}
	prev := make([]*gate.Result, len(gates))
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		var got [2]observed
		for i, g := range gates {
			res, err := g.Check(ctx, gate.Request{Method: "GET", Resource: "/", APIKey: st.key})
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			got[i] = observed{res.Status, res.Reason, res.TenantID, res.FailOpen, res.Decision.Limit, res.Decision.Remaining,
				prev[i] != nil && res.Set != nil && res.Set == prev[i].Set, res.ConfigCalls > 0}
			if res.Set != nil {
				prev[i] = &res
			}
		}
		if got[0] != got[1] {
			t.Fatalf("%s: LookupKeyTenant answered %+v, LookupKey then Get %+v", st.name, got[1], got[0])
		}
	}
	oneCalls := one.both.Load() + one.calls.Load() // calls counts its LookupKey and Get
	if oneCalls >= two.calls.Load() || one.lookups.Load() != 0 {
		t.Fatalf("%d calls with two reads; %d with LookupKeyTenant, of which %d LookupKey", two.calls.Load(), oneCalls, one.lookups.Load())
	}
}

func setFailing(on bool, stores ...*failingTenants) {
	for _, s := range stores {
		s.failing.Store(on)
	}
}

func raiseLimit(t *testing.T, ts *memory.Tenants) {
	acme, err := ts.Get(context.Background(), "acme")
	must(t, err)
	acme.Rules[0].Limit = 50
	_, err = ts.Replace(context.Background(), acme, acme.Version)
	must(t, err)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
