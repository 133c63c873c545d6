package gate

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// denialCache remembers checks known to be denied until an instant: see "The denial
// cache" in the package doc. It is a bounded LRU (hashicorp/golang-lru/v2) whose
// entries carry their end, checked against the gate's injected clock.
type denialCache struct {
	m *lru.Cache[denialKey, denial]
}

// denialKey names the rules a denial was decided by: a counter key (which holds the
// tenant, its creation, generation, route and scope) and the identity of the tenant's
// compiled rules (tenantEntry.rules: its creation id, stored version and generation,
// its plan's version and its active overrides), which fixes the rules under that key. A tenant whose rules are compiled again, the
// same version (the config cache off, or a reload), meets its denials; a rule change,
// a reset or a tenant created again never meets an old one.
type denialKey struct {
	key     string
	version int64
}

type denial struct {
	cost  int64 // the cost that was denied: requests of at least this cost are denied
	until int64 // the instant a request of that cost may first be allowed
	d     limiter.Decision
}

func newDenialCache(max int) (*denialCache, error) {
	m, err := lru.New[denialKey, denial](max)
	return &denialCache{m: m}, err
}

// get returns the cached denial of (key, version) for a request of cost at now, with
// its RetryAfter recomputed; ok is false when the store must decide.
func (c *denialCache) get(key string, version, now, cost int64) (limiter.Decision, bool) {
	e, ok := c.m.Get(denialKey{key, version})
	if !ok || now >= e.until || cost < e.cost {
		return limiter.Decision{}, false
	}
	d := e.d
	d.RetryAfter = e.until - now
	return d, true
}

// put records that a request of cost was denied d at now.
func (c *denialCache) put(key string, version, now, cost int64, d limiter.Decision) {
	if d.Allowed || d.RetryAfter <= 0 {
		return
	}
	c.m.Add(denialKey{key, version}, denial{cost: cost, until: now + d.RetryAfter, d: d})
}

// forget drops the denial of (key, version): a refund made it stale.
func (c *denialCache) forget(key string, version int64) {
	c.m.Remove(denialKey{key, version})
}
