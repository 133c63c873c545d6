package gate_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// countingTenants counts the tenant store's reads; while gate is not nil, each
// LookupKey waits for it to be closed first.
type countingTenants struct {
	store.Tenants
	lookups, gets atomic.Int64
	gate          chan struct{}
}

func (s *countingTenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	s.lookups.Add(1)
	if s.gate != nil {
		<-s.gate
	}
	return s.Tenants.LookupKey(ctx, hash)
}

func (s *countingTenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	s.gets.Add(1)
	return s.Tenants.Get(ctx, id)
}

// TestRandomKeysDoNotEvictARealKey: 200,000 random well-formed keys (each unknown, at
// the default MaxEntries of 100,000) leave a cached real key cached: its next request
// costs one store call, the counter store's, and no tenant store call. The key cache
// once kept found and not-found keys in one map, which the flood emptied.
func TestRandomKeysDoNotEvictARealKey(t *testing.T) {
	f := newFixture(t, nil)
	ts := &countingTenants{Tenants: f.tenants}
	g, err := gate.New(gate.Config{Tenants: ts, Counters: f.counters, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	real := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	if res, err := g.Check(context.Background(), real); err != nil || res.Status != gate.Allowed {
		t.Fatalf("the real key: %+v, %v", res, err)
	}
	const flood = 200_000
	for i := range flood {
		res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/", APIKey: fmt.Sprintf("elk_%08x_%042d0", i, i)})
		if err != nil || res.Status != gate.Unauthorized || res.ConfigCalls != 1 {
			t.Fatalf("random key %d: %v after %d config calls, %v; want unauthorized after 1", i, res.Status, res.ConfigCalls, err)
		}
		if i%20_000 == 0 {
			f.clock.add(sec / 10) // the flood takes a while, within the config TTL
		}
	}
	lookups, gets, decides := ts.lookups.Load(), ts.gets.Load(), f.counters.calls.Load()
	res, err := g.Check(context.Background(), real)
	if err != nil || res.Status != gate.Allowed {
		t.Fatalf("the real key after the flood: %+v, %v", res, err)
	}
	calls := (ts.lookups.Load() - lookups) + (ts.gets.Load() - gets) + (f.counters.calls.Load() - decides)
	if calls != 1 || res.ConfigCalls != 0 || res.StoreCalls != 1 {
		t.Errorf("the real key after %d random keys: %d store calls (%d config, %d counter); want 1, the counter store's", flood, calls, res.ConfigCalls, res.StoreCalls)
	}
}

// TestConcurrentMissesShareOneLookup: 32 requests with one key that is not cached,
// all waiting at once, make one tenant store lookup and one tenant read between them
// (single flight); each is decided under the key's tenant (its limit of 5 a minute
// allows 5). synctest.Wait holds the lookup until every request waits.
func TestConcurrentMissesShareOneLookup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil)
		ts := &countingTenants{Tenants: f.tenants, gate: make(chan struct{})}
		g, err := gate.New(gate.Config{Tenants: ts, Counters: f.counters, Now: f.clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		const n = 32
		var wg sync.WaitGroup
		statuses := make([]gate.Status, n)
		for i := range n {
			wg.Go(func() {
				res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/", APIKey: f.key})
				if err != nil || res.FailOpen || res.FailedClosed {
					t.Errorf("request %d: %+v, %v", i, res, err)
				}
				statuses[i] = res.Status
			})
		}
		synctest.Wait() // every request is in the lookup or waiting for it
		close(ts.gate)
		wg.Wait()
		if lookups, gets := ts.lookups.Load(), ts.gets.Load(); lookups != 1 || gets != 1 {
			t.Errorf("%d concurrent misses of one key made %d lookups and %d tenant reads; want 1 and 1", n, lookups, gets)
		}
		allowed := 0
		for _, s := range statuses {
			if s == gate.Allowed {
				allowed++
			}
		}
		if allowed != 5 {
			t.Errorf("%d of %d allowed; want 5", allowed, n)
		}
	})
}

// TestDenialCacheWithoutConfigCache: with the config cache off (edgelimit dev's
// EDGELIMIT_CONFIG_TTL=0), each request compiles its tenant's rules afresh, and the
// denial cache still answers: it is keyed by the rules' version, not by the compiled
// set's identity (before, no entry was ever met again).
func TestDenialCacheWithoutConfigCache(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.ConfigTTL = -1 })
	req := gate.Request{Method: "POST", Resource: "/orders", APIKey: f.key}
	for range 2 {
		f.check(t, req)
		f.clock.add(sec / 100)
	}
	if res := f.check(t, req); res.Status != gate.Denied || res.Cached || res.StoreCalls != 1 {
		t.Fatalf("third request of 2 a second: %v, cached %v, %d store calls; want denied by the store", res.Status, res.Cached, res.StoreCalls)
	}
	f.clock.add(sec / 100)
	if res := f.check(t, req); res.Status != gate.Denied || !res.Cached || res.StoreCalls != 0 {
		t.Errorf("fourth request: %v, cached %v, %d store calls; want denied from the denial cache", res.Status, res.Cached, res.StoreCalls)
	}
}
