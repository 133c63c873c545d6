package gate

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
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

// configCache caches key records by hash, tenants (with their compiled rules) by id and
// plans by id, for ttl on the gate's clock, and serves expired entries for up to maxStale more
// while the store fails. See the package doc.
//
// Each cache is a bounded LRU (hashicorp/golang-lru/v2) whose values carry the
// instant they were loaded, checked against the gate's injected clock. Keys found and
// keys not found are kept apart, so that a flood of random keys (each one not found)
// evicts only other keys not found, never a real key's record. Concurrent misses of
// one key, tenant or plan share one store call (golang.org/x/sync/singleflight).
//
// A plan is cached apart from the tenants on it, so that it is read once per ttl per
// instance however many tenants name it; a tenant's compiled rules record the plan
// version they were compiled with, and are compiled again when the plan cache holds
// another.
type configCache struct {
	store         Tenants
	plans         Plans                            // nil when the store keeps no plans
	ttl, maxStale int64                            // microseconds; ttl < 0: no caching
	keys          *lru.Cache[string, keyEntry]     // key records found, by hash
	missing       *lru.Cache[string, int64]        // hashes not found -> when loaded
	tenants       *lru.Cache[string, *tenantEntry] // by id, found or not; never changed once added
	planCache     *lru.Cache[string, planEntry]    // by id, found or not
	keySets       *lru.Cache[keySetsKey, keySetsEntry]
	flight        singleflight.Group // misses in progress, by "k"+hash, "t"+id or "p"+id
}

type keyEntry struct {
	rec    apikey.Record
	found  bool
	loaded int64
}

// tenantEntry is a tenant and its compiled rules, or the fact that it does not exist.
type tenantEntry struct {
	t      tenant.Tenant
	sets   *tenant.Sets // t.Effective(plan, loaded) compiled
	plan   *tenant.Plan // the plan sets were compiled with; nil when t names none
	found  bool
	loaded int64
	// until is the end of the calendar windows current at loaded, or the end of an
	// override active at loaded if it is earlier: the entry is reloaded there, whatever
	// the TTL, so that a change of time zone made just before a local midnight cannot
	// let the old zone open a new day (a second quota), and no override outlives its
	// until.
	until int64
	// rules identifies the rules sets holds, for the denial cache and reservations: the
	// tenant's creation id, version and generation, and its plan's and active overrides'.
	rules int64
}

// keySetsKey names the rules compiled for a key with rules of its own: its hash and the
// rules of its tenant's entry (tenantEntry.rules).
type keySetsKey struct {
	hash  string
	rules int64
}

// keySetsEntry is the rules compiled for a key with rules of its own, and the end of
// their calendar windows current at loaded, the load of the tenant entry they were
// compiled from.
type keySetsEntry struct {
	sets          *tenant.Sets
	loaded, until int64
}

// planEntry is a plan, or the fact that it does not exist.
type planEntry struct {
	p      tenant.Plan
	found  bool
	loaded int64
}

func newConfigCache(ts Tenants, ttl, maxStale time.Duration, max int) (*configCache, error) {
	var err error
	c := &configCache{store: ts, ttl: ttl.Microseconds(), maxStale: maxStale.Microseconds(),
		keys: newLRU[string, keyEntry](max, &err), missing: newLRU[string, int64](max, &err),
		tenants: newLRU[string, *tenantEntry](max, &err), planCache: newLRU[string, planEntry](max, &err),
		keySets: newLRU[keySetsKey, keySetsEntry](max, &err)}
	c.plans, _ = ts.(Plans)
	if ttl < 0 {
		c.ttl = -1
	}
	if maxStale < 0 {
		c.maxStale = 0
	}
	return c, err
}

// newLRU returns an LRU cache of size entries; *err is set to lru.New's error, unless
// it holds an earlier one.
func newLRU[K comparable, V any](size int, err *error) *lru.Cache[K, V] {
	c, e := lru.New[K, V](size)
	if *err == nil {
		*err = e
	}
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
// error. A reload that finds the same version, generation and creation, on the same
// plan version, keeps the compiled rules; a fresh entry whose plan the plan cache now
// holds at another version is compiled again. calls counts the store calls made, as
// key does.
func (c *configCache) tenant(ctx context.Context, id string, now int64, calls *int) (*tenantEntry, error) {
	return c.tenantSince(ctx, id, math.MinInt64, now, calls)
}

// tenantSince is tenant for an entry loaded at since or later: an entry loaded before
// since is loaded again, fresh or not.
func (c *configCache) tenantSince(ctx context.Context, id string, since, now int64, calls *int) (*tenantEntry, error) {
	e, ok := c.tenants.Get(id)
	if ok && c.current(e, since, now) {
		return c.onPlan(ctx, id, e, now, calls)
	}
	v, err, _ := c.flight.Do("t"+id, func() (any, error) {
		// A flight that ended between Get and Do has cached its answer.
		if e, ok := c.tenants.Get(id); ok && c.current(e, since, now) {
			return e.result()
		}
		*calls++
		t, err := c.store.Get(ctx, id)
		return c.loadedTenant(ctx, id, e, ok, t, err, now, calls)
	})
	if err != nil {
		return nil, err
	}
	return c.onPlan(ctx, id, v.(*tenantEntry), now, calls)
}

// current reports whether the tenant entry e, loaded at since or later, may answer at
// now without a load: it is fresh and its calendar windows and overrides have not
// ended (tenantEntry.until).
func (c *configCache) current(e *tenantEntry, since, now int64) bool {
	return e.loaded >= since && c.fresh(e.loaded, now) && now < e.until
}

// onPlan returns e, compiled again with its plan when the plan cache holds the plan at
// another version than e's rules were compiled with (a new entry: e is not changed).
func (c *configCache) onPlan(ctx context.Context, id string, e *tenantEntry, now int64, calls *int) (*tenantEntry, error) {
	if !e.found || e.t.Plan == "" {
		return e.result()
	}
	p, err := c.plan(ctx, e.t.Plan, now, calls)
	if err != nil {
		return nil, err
	}
	if samePlan(e.plan, p) {
		return e, nil
	}
	next, err := build(e.t, p, now)
	if err != nil {
		return nil, err
	}
	next.loaded = e.loaded // the tenant's TTL runs on
	if c.ttl >= 0 {
		c.tenants.Add(id, &next)
	}
	return &next, nil
}

// loadedTenant caches and returns what a load of tenant id at now answered (t, or
// err), prev being its cache entry when ok.
func (c *configCache) loadedTenant(ctx context.Context, id string, prev *tenantEntry, ok bool, t tenant.Tenant, err error, now int64, calls *int) (*tenantEntry, error) {
	var e tenantEntry
	switch {
	case err == nil:
		next, cerr := c.compile(ctx, t, prev, ok, now, calls)
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
		c.tenants.Add(id, &e)
	}
	return e.result()
}

// compile builds the entry of t with its plan, reusing prev's compiled rules when t is
// the same creation of the tenant at the same version and generation, on the same
// plan version (a tenant created again starts at version 1 again, with other rules
// maybe), and no override of prev has ended. prev, nil when !hadPrev, is not changed.
func (c *configCache) compile(ctx context.Context, t tenant.Tenant, prev *tenantEntry, hadPrev bool, now int64, calls *int) (tenantEntry, error) {
	var p *tenant.Plan
	if t.Plan != "" {
		var err error
		if p, err = c.plan(ctx, t.Plan, now, calls); err != nil {
			return tenantEntry{}, err
		}
	}
	if hadPrev && prev.found && prev.t.Version == t.Version && prev.t.Generation == t.Generation &&
		prev.t.CreationID == t.CreationID && samePlan(prev.plan, p) && now < prev.t.OverridesEnd(prev.loaded) {
		next := *prev
		next.loaded, next.until = now, min(windowsEnd(prev.sets, now), prev.t.OverridesEnd(now))
		return next, nil
	}
	return build(t, p, now)
}

// build compiles t's rules merged with plan p's and its overrides active at now.
func build(t tenant.Tenant, p *tenant.Plan, now int64) (tenantEntry, error) {
	sets, err := t.Effective(p, now).Sets()
	if err != nil {
		return tenantEntry{}, err
	}
	until := min(windowsEnd(sets, now), t.OverridesEnd(now))
	return tenantEntry{t: t, sets: sets, plan: p, found: true, loaded: now, until: until, rules: rulesID(t, p, now)}, nil
}

// tenantOfKey returns tenant id as the requests of its key rec are limited (forKey).
// The tenant is loaded again first when a calendar window of the key's own rules,
// current when it was loaded, has ended since, as tenant does at the end of the
// tenant's own windows: a zone change made just before a local midnight cannot let the
// old zone open a new day of the key's either. calls counts the store calls made.
func (c *configCache) tenantOfKey(ctx context.Context, id string, rec apikey.Record, now int64, calls *int) (*tenantEntry, error) {
	e, err := c.tenant(ctx, id, now, calls)
	if err != nil {
		return nil, err
	}
	out, err := c.forKey(e, rec, now)
	if err != nil || now < out.until || !c.current(e, math.MinInt64, now) {
		return out, err // (not current: tenant's load failed, and e is the last known entry)
	}
	if e, err = c.tenantSince(ctx, id, out.until, now, calls); err != nil {
		return nil, err
	}
	return c.forKey(e, rec, now) // loaded again, or the last known entry while the store fails
}

// forKey returns e as the requests of the key rec are limited: e itself for a key
// without rules of its own, else e with the rules compiled for that key
// (tenant.Tenant.EffectiveFor), cached by the key's hash and e's rules, and with until
// at the end of their calendar windows current when e was loaded, if earlier.
func (c *configCache) forKey(e *tenantEntry, rec apikey.Record, now int64) (*tenantEntry, error) {
	if len(rec.Rules) == 0 {
		return e, nil
	}
	k := keySetsKey{rec.Hash, e.rules}
	ks, ok := c.keySets.Get(k)
	if !ok || ks.loaded != e.loaded {
		sets := ks.sets
		if !ok {
			var err error
			if sets, err = e.t.EffectiveFor(e.plan, rec.Rules, now).Sets(); err != nil {
				return nil, err
			}
		}
		ks = keySetsEntry{sets: sets, loaded: e.loaded, until: windowsEnd(sets, e.loaded)}
		if c.ttl >= 0 {
			c.keySets.Add(k, ks)
		}
	}
	out := *e
	h := fnv.New64a()
	fmt.Fprint(h, e.rules, "/", rec.Hash)
	out.sets, out.rules, out.until = ks.sets, int64(h.Sum64()), min(e.until, ks.until)
	return &out, nil
}

// samePlan reports whether rules compiled with plan a hold for plan b.
func samePlan(a, b *tenant.Plan) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.Version == b.Version
}

// rulesID identifies the rules that build compiles for t on plan p at now: an FNV-1a
// hash of t's creation id, version and generation (what compile compares: a tenant
// deleted and created again is at version 1 and generation 0 again, under other
// counter keys), p's id and version and which overrides are active.
func rulesID(t tenant.Tenant, p *tenant.Plan, now int64) int64 {
	h := fnv.New64a()
	fmt.Fprint(h, t.CreationID, "/", t.Version, ".", t.Generation)
	if p != nil {
		fmt.Fprint(h, "/", p.ID, "/", p.Version)
	}
	for i, o := range t.Overrides {
		if o.Active(now) {
			fmt.Fprint(h, "+", i)
		}
	}
	return int64(h.Sum64())
}

// plan returns plan id, or the store's error: an error naming the plan when it does
// not exist (a tenant names it: the store refuses that, but a cache may be behind).
// It is cached as key records are, and read once per ttl however many tenants name it.
func (c *configCache) plan(ctx context.Context, id string, now int64, calls *int) (*tenant.Plan, error) {
	if c.plans == nil {
		return nil, fmt.Errorf("tenant store: names plan %q, but the store keeps no plans", id)
	}
	e, ok := c.planCache.Get(id)
	if ok && c.fresh(e.loaded, now) {
		return e.result(id)
	}
	v, err, _ := c.flight.Do("p"+id, func() (any, error) {
		if e, ok := c.planCache.Get(id); ok && c.fresh(e.loaded, now) {
			return e, nil
		}
		*calls++
		return c.loadPlan(ctx, id, now)
	})
	if err != nil {
		if ok && c.usable(e.loaded, now) {
			return e.result(id) // the store fails: the last known plan
		}
		return nil, err
	}
	return v.(planEntry).result(id)
}

// loadPlan reads plan id from the store and caches the answer, found or not.
func (c *configCache) loadPlan(ctx context.Context, id string, now int64) (planEntry, error) {
	p, err := c.plans.GetPlan(ctx, id)
	e := planEntry{p: p, found: err == nil, loaded: now}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return planEntry{}, err
	}
	if c.ttl >= 0 {
		c.planCache.Add(id, e)
	}
	return e, nil
}

func (e planEntry) result(id string) (*tenant.Plan, error) {
	if !e.found {
		return nil, fmt.Errorf("tenant store: names plan %q, which does not exist", id)
	}
	return &e.p, nil
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

func (e *tenantEntry) result() (*tenantEntry, error) {
	if !e.found {
		return nil, errNotFound
	}
	return e, nil
}
