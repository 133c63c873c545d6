package gate

import (
	"context"
	"errors"
	"math"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// errNotFound is what the cache answers for a key or tenant the store does not have
// (revoked keys included); it matches store.ErrNotFound.
var errNotFound = store.ErrNotFound

// configCache caches key records by hash and tenants (with their compiled rules) by
// id, for ttl on the gate's clock, and serves expired entries for up to maxStale more
// while the store fails. See the package doc.
//
// Each cache is a bounded LRU (hashicorp/golang-lru/v2) whose values carry the
// instant they were loaded, checked against the gate's injected clock. Keys found and
// keys not found are kept apart, so that a flood of random keys (each one not found)
// evicts only other keys not found, never a real key's record. Concurrent misses of
// one key or tenant share one store call (golang.org/x/sync/singleflight).
type configCache struct {
	store         Tenants
	ttl, maxStale int64                           // microseconds; ttl < 0: no caching
	keys          *lru.Cache[string, keyEntry]    // key records found, by hash
	missing       *lru.Cache[string, int64]       // hashes not found -> when loaded
	tenants       *lru.Cache[string, tenantEntry] // by id, found or not
	flight        singleflight.Group              // misses in progress, by "k"+hash or "t"+id
}

type keyEntry struct {
	rec    apikey.Record
	found  bool
	loaded int64
}

// tenantEntry is a tenant and its compiled rules, or the fact that it does not exist.
type tenantEntry struct {
	t      tenant.Tenant
	sets   *tenant.Sets
	found  bool
	loaded int64
	// until is the end of the calendar windows current at loaded: the entry is reloaded
	// there, whatever the TTL, so that a change of time zone made just before a local
	// midnight cannot let the old zone open a new day (a second quota).
	until int64
}

func newConfigCache(ts Tenants, ttl, maxStale time.Duration, max int) (*configCache, error) {
	c := &configCache{store: ts, ttl: ttl.Microseconds(), maxStale: maxStale.Microseconds()}
	if ttl < 0 {
		c.ttl = -1
	}
	if maxStale < 0 {
		c.maxStale = 0
	}
	var err error
	if c.keys, err = lru.New[string, keyEntry](max); err != nil {
		return nil, err
	}
	if c.missing, err = lru.New[string, int64](max); err != nil {
		return nil, err
	}
	c.tenants, err = lru.New[string, tenantEntry](max)
	return c, err
}

// fresh reports whether an entry loaded at loaded may answer at now without a load.
func (c *configCache) fresh(loaded, now int64) bool {
	return c.ttl >= 0 && now >= loaded && now-loaded < c.ttl
}

// usable reports whether an expired entry may still answer while the store fails.
func (c *configCache) usable(loaded, now int64) bool {
	return c.ttl >= 0 && now-loaded < c.ttl+c.maxStale
}

// key returns the record of the key whose hash is hash, errNotFound, or the store's
// error. calls counts the store calls made: one for a miss, none for a hit or for a
// miss that shared another request's call.
func (c *configCache) key(ctx context.Context, hash string, now int64, calls *int) (apikey.Record, error) {
	e, ok := c.cachedKey(hash)
	if ok && c.fresh(e.loaded, now) {
		return e.result()
	}
	v, err, _ := c.flight.Do("k"+hash, func() (any, error) {
		// A flight that ended between cachedKey and Do has cached its answer.
		if e, ok := c.cachedKey(hash); ok && c.fresh(e.loaded, now) {
			return e, nil
		}
		*calls++
		return c.loadKey(ctx, hash, now)
	})
	if err != nil {
		if ok && c.usable(e.loaded, now) {
			return e.result() // the store fails: the last known answer
		}
		return apikey.Record{}, err
	}
	return v.(keyEntry).result()
}

// cachedKey returns the cached answer for hash, found or not.
func (c *configCache) cachedKey(hash string) (keyEntry, bool) {
	if e, ok := c.keys.Get(hash); ok {
		return e, true
	}
	loaded, ok := c.missing.Get(hash)
	return keyEntry{loaded: loaded}, ok
}

// loadKey reads the record of hash from the store and caches the answer, found (in
// keys) or not (in missing; a key revoked since is dropped from keys). The error is
// the store's failure.
func (c *configCache) loadKey(ctx context.Context, hash string, now int64) (keyEntry, error) {
	rec, err := c.store.LookupKey(ctx, hash)
	switch {
	case err == nil:
		e := keyEntry{rec: rec, found: true, loaded: now}
		if c.ttl >= 0 {
			c.missing.Remove(hash)
			c.keys.Add(hash, e)
		}
		return e, nil
	case errors.Is(err, store.ErrNotFound):
		if c.ttl >= 0 {
			c.keys.Remove(hash)
			c.missing.Add(hash, now)
		}
		return keyEntry{loaded: now}, nil
	}
	return keyEntry{}, err
}

func (e keyEntry) result() (apikey.Record, error) {
	if !e.found {
		return apikey.Record{}, errNotFound
	}
	return e.rec, nil
}

// tenant returns the tenant id with its compiled rules, errNotFound, or the store's
// error. A reload that finds the same version, generation and creation keeps the
// compiled rules. calls counts the store calls made, as key does.
func (c *configCache) tenant(ctx context.Context, id string, now int64, calls *int) (*tenantEntry, error) {
	e, ok := c.tenants.Get(id)
	if ok && c.fresh(e.loaded, now) && now < e.until {
		return e.result()
	}
	v, err, _ := c.flight.Do("t"+id, func() (any, error) {
		// A flight that ended between Get and Do has cached its answer.
		if e, ok := c.tenants.Get(id); ok && c.fresh(e.loaded, now) && now < e.until {
			return e.result()
		}
		*calls++
		t, err := c.store.Get(ctx, id)
		return c.loadedTenant(id, e, ok, t, err, now)
	})
	if err != nil {
		return nil, err
	}
	return v.(*tenantEntry), nil
}

// loadedTenant caches and returns what a load of tenant id at now answered (t, or
// err), prev being its cache entry when ok.
func (c *configCache) loadedTenant(id string, prev tenantEntry, ok bool, t tenant.Tenant, err error, now int64) (*tenantEntry, error) {
	var e tenantEntry
	switch {
	case err == nil:
		next, cerr := compile(t, prev, ok, now)
		if cerr != nil {
			return nil, cerr
		}
		e = next
	case errors.Is(err, store.ErrNotFound):
		e = tenantEntry{loaded: now, until: math.MaxInt64}
	case ok && c.usable(prev.loaded, now):
		return prev.result()
	default:
		return nil, err
	}
	if c.ttl >= 0 {
		c.tenants.Add(id, e)
	}
	return e.result()
}

// compile builds the entry of t, reusing prev's compiled rules when t is the same
// creation of the tenant at the same version and generation (a tenant created again
// starts at version 1 again, with other rules maybe).
func compile(t tenant.Tenant, prev tenantEntry, hadPrev bool, now int64) (tenantEntry, error) {
	if hadPrev && prev.found && prev.t.Version == t.Version && prev.t.Generation == t.Generation && prev.t.CreationID == t.CreationID {
		return tenantEntry{t: prev.t, sets: prev.sets, found: true, loaded: now, until: windowsEnd(prev.sets, now)}, nil
	}
	sets, err := t.Sets()
	if err != nil {
		return tenantEntry{}, err
	}
	return tenantEntry{t: t, sets: sets, found: true, loaded: now, until: windowsEnd(sets, now)}, nil
}

// windowsEnd returns the earliest end of the calendar windows (day, week, month) of
// sets at now, or math.MaxInt64 when they have none.
func windowsEnd(sets *tenant.Sets, now int64) int64 {
	end := int64(math.MaxInt64)
	all := sets.Tenant
	for _, r := range sets.Routes {
		all = append(all[:len(all):len(all)], r.Sets...)
	}
	for _, ss := range all {
		set := ss.Set
		for i := range set.Len() {
			if set.Rule(i).Period.IsCalendar() {
				_, e := set.Window(i, now)
				end = min(end, e)
			}
		}
	}
	return end
}

func (e tenantEntry) result() (*tenantEntry, error) {
	if !e.found {
		return nil, errNotFound
	}
	return &e, nil
}
