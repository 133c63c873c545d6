package gate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// A revoked key keeps working until its cache entry is ConfigTTL old, and no longer.
func TestRevokedKeyStopsWithinTTL(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.ConfigTTL = 10 * time.Second })
	req := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	if res := f.check(t, req); res.Status != gate.Allowed || res.ConfigCalls != 2 {
		t.Fatalf("first: %v with %d config calls, want allowed with 2", res.Status, res.ConfigCalls)
	}
	if err := f.tenants.RevokeKey(context.Background(), "acme", f.keyID, t0); err != nil {
		t.Fatal(err)
	}
	f.clock.add(10*sec - 1)
	if res := f.check(t, req); res.Status != gate.Allowed || res.ConfigCalls != 0 {
		t.Fatalf("within the TTL: %v with %d config calls, want allowed from the cache", res.Status, res.ConfigCalls)
	}
	f.clock.add(1)
	if res := f.check(t, req); res.Status != gate.Unauthorized {
		t.Fatalf("at the TTL: %v, want unauthorized", res.Status)
	}
}

// While the tenant store fails, expired entries are used up to MaxStale; after that
// the default fail mode answers.
func TestStaleConfigWhileTheTenantStoreFails(t *testing.T) {
	f := newFixture(t, nil)
	ft := &failingTenants{Tenants: f.tenants}
	g, err := gate.New(gate.Config{Tenants: ft, Counters: f.counters, Now: f.clock.Now,
		ConfigTTL: 10 * time.Second, MaxStale: time.Minute, FailMode: tenant.FailOpen})
	if err != nil {
		t.Fatal(err)
	}
	req := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	check := func() gate.Result {
		res, err := g.Check(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check()
	ft.failing.Store(true)
	f.clock.add(10*sec + 60*sec - 1)
	if res := check(); res.Status != gate.Allowed || res.FailOpen || res.TenantID != "acme" {
		t.Fatalf("stale: %+v, want allowed by acme's rules", res)
	}
	f.clock.add(1)
	if res := check(); res.Status != gate.Allowed || !res.FailOpen || res.TenantID != "" {
		t.Fatalf("too stale: %+v, want the default fail mode (open) without a tenant", res)
	}
	ft.failing.Store(false)
	if res := check(); res.Status != gate.Allowed || res.FailOpen {
		t.Fatalf("store back: %+v", res)
	}
}

// A reload that finds the same version keeps the compiled sets, so state keyed by
// *limiter.Set (denial cache, backends) carries over; a new version compiles anew.
func TestReloadKeepsSetsOfTheSameVersion(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.ConfigTTL = time.Second })
	req := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	first := f.check(t, req)
	f.clock.add(2 * sec)
	second := f.check(t, req)
	if second.ConfigCalls == 0 || second.Set != first.Set {
		t.Fatalf("reload of the same version: %d config calls, same set %v", second.ConfigCalls, second.Set == first.Set)
	}
	acme, err := f.tenants.Get(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	acme.Rules[0].Limit = 50
	if _, err := f.tenants.Replace(context.Background(), acme, acme.Version); err != nil {
		t.Fatal(err)
	}
	f.clock.add(2 * sec)
	third := f.check(t, req)
	if third.Set == first.Set || third.Decision.Limit != 50 {
		t.Fatalf("new version: limit %d, same set %v", third.Decision.Limit, third.Set == first.Set)
	}
}

// Unknown keys are cached too: a flood of one unknown key costs one lookup per TTL.
func TestUnknownKeyIsCached(t *testing.T) {
	f := newFixture(t, nil)
	ft := &failingTenants{Tenants: f.tenants}
	g, err := gate.New(gate.Config{Tenants: ft, Counters: f.counters, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	req := gate.Request{APIKey: "elk_zzzzzzzz_" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
	for range 10 {
		res, _ := g.Check(context.Background(), req)
		if res.Status != gate.Unauthorized {
			t.Fatalf("status %v", res.Status)
		}
	}
	if n := ft.calls.Load(); n != 1 {
		t.Fatalf("%d lookups, want 1", n)
	}
}

// The caches stay bounded by MaxEntries whatever keys arrive.
func TestCachesAreBounded(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.MaxEntries = 8 })
	for i := range 100 {
		res := f.check(t, gate.Request{APIKey: fmt.Sprintf("elk_zzzzzzzz_%042d0", i)})
		if res.Status != gate.Unauthorized || res.ConfigCalls != 1 {
			t.Fatalf("key %d: %v after %d lookups, want unauthorized after 1", i, res.Status, res.ConfigCalls)
		}
	}
	if n := gate.CachedMisses(f.g); n > 8 {
		t.Fatalf("%d cached misses, want at most 8", n)
	}
}
