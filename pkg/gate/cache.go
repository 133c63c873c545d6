package gate

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

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
type configCache struct {
	store         Tenants
	both          store.KeyTenantLookup // store's, when it offers it; else nil
	ttl, maxStale int64                 // microseconds; ttl < 0: no caching
	keys          boundedMap[keyEntry]
	tenants       boundedMap[tenantEntry]
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

func newConfigCache(ts Tenants, ttl, maxStale time.Duration, max int) *configCache {
	c := &configCache{store: ts, ttl: ttl.Microseconds(), maxStale: maxStale.Microseconds()}
	c.both, _ = ts.(store.KeyTenantLookup)
	if ttl < 0 {
		c.ttl = -1
	}
	if maxStale < 0 {
		c.maxStale = 0
	}
	c.keys.init(max)
	c.tenants.init(max)
	return c
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
// error. calls counts the store calls made.
func (c *configCache) key(ctx context.Context, hash string, now int64, calls *int) (apikey.Record, error) {
	e, ok := c.keys.get(hash)
	if ok && c.fresh(e.loaded, now) {
		return e.result()
	}
	*calls++
	rec, err := c.lookup(ctx, hash, now)
	switch {
	case err == nil:
		e = keyEntry{rec: rec, found: true, loaded: now}
	case errors.Is(err, store.ErrNotFound):
		e = keyEntry{loaded: now}
	case ok && c.usable(e.loaded, now):
		return e.result() // the store fails: the last known answer
	default:
		return apikey.Record{}, err
	}
	if c.ttl >= 0 {
		c.keys.put(hash, e, now, c.ttl+c.maxStale)
	}
	return e.result()
}

// lookup reads the record of the key whose hash is hash. When the store offers
// LookupKeyTenant, it reads the key's tenant in the same call and caches it as tenant
// would have (even over a fresh entry: it is newer), so that tenant finds it fresh.
func (c *configCache) lookup(ctx context.Context, hash string, now int64) (apikey.Record, error) {
	if c.both == nil {
		return c.store.LookupKey(ctx, hash)
	}
	rec, t, err := c.both.LookupKeyTenant(ctx, hash)
	if rec == (apikey.Record{}) {
		return rec, err // the key's answer
	}
	prev, ok := c.tenants.get(rec.TenantID)
	// The answer is tenant's to give: on a failure (a stale entry then stays as it
	// was) or rules that do not compile, tenant reads the tenant again.
	_, _ = c.loadedTenant(rec.TenantID, prev, ok, t, err, now)
	return rec, nil
}

func (e keyEntry) result() (apikey.Record, error) {
	if !e.found {
		return apikey.Record{}, errNotFound
	}
	return e.rec, nil
}

// tenant returns the tenant id with its compiled rules, errNotFound, or the store's
// error. A reload that finds the same version and generation keeps the compiled rules.
func (c *configCache) tenant(ctx context.Context, id string, now int64, calls *int) (*tenantEntry, error) {
	e, ok := c.tenants.get(id)
	if ok && c.fresh(e.loaded, now) && now < e.until {
		return e.result()
	}
	*calls++
	t, err := c.store.Get(ctx, id)
	return c.loadedTenant(id, e, ok, t, err, now)
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
		c.tenants.put(id, e, now, c.ttl+c.maxStale)
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

// boundedMap is a mutex-guarded map of at most max entries, each with an instant after
// which it is useless. When full, it drops the useless entries, and if that is not
// enough, arbitrary ones down to 7/8 of max: memory stays bounded whatever the callers
// send (random keys included), at an amortised O(1) per insertion.
type boundedMap[V any] struct {
	mu  sync.Mutex
	max int
	m   map[string]bounded[V]
}

type bounded[V any] struct {
	v     V
	until int64
}

func (b *boundedMap[V]) init(max int) {
	b.max = max
	b.m = make(map[string]bounded[V])
}

func (b *boundedMap[V]) get(k string) (V, bool) {
	b.mu.Lock()
	e, ok := b.m[k]
	b.mu.Unlock()
	return e.v, ok
}

// put stores v under k, useful until now+keep.
func (b *boundedMap[V]) put(k string, v V, now, keep int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[k]; !ok && len(b.m) >= b.max {
		b.shrink(now)
	}
	b.m[k] = bounded[V]{v: v, until: now + keep}
}

func (b *boundedMap[V]) delete(k string) {
	b.mu.Lock()
	delete(b.m, k)
	b.mu.Unlock()
}

func (b *boundedMap[V]) shrink(now int64) {
	for k, e := range b.m {
		if e.until <= now {
			delete(b.m, k)
		}
	}
	for k := range b.m {
		if len(b.m) < b.max-b.max/8 {
			break
		}
		delete(b.m, k)
	}
}

func (b *boundedMap[V]) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}
