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
// its plan's version and its active overrides), which fixes the rules under that key.
// A tenant whose rules are compiled again, the same version (the config cache off, or
// a reload), meets its denials; a rule change, a reset or a tenant created again never
// meets an old one.
type denialKey struct {
	key     string
	version int64
}

type denial struct {
	cost  int64 // the cost that was denied
	until int64 // the instant a request of that cost may first be allowed
	// anyCost says until holds for every larger cost too: the counter's set is one
	// fixed window, whose next window admits any cost the set can. Otherwise a larger
	// cost may need longer (a bucket's refill, or another rule of the set that admitted
	// the denied cost), and its RetryAfter must come from the store.
	anyCost bool
	d       limiter.Decision
}

func newDenialCache(max int) (*denialCache, error) {
	m, err := lru.New[denialKey, denial](max)
	return &denialCache{m: m}, err
}

// get returns the cached denial of (key, version) for a request of cost at now, with
// its RetryAfter recomputed; ok is false when the store must decide: past the retry
// instant, or a cost other than the denied one whose retry instant the entry does not
// know (a smaller cost may be allowed; a larger one may be allowed later).
func (c *denialCache) get(key string, version, now, cost int64) (limiter.Decision, bool) {
	e, ok := c.m.Get(denialKey{key, version})
	if !ok || now >= e.until || cost < e.cost || (cost > e.cost && !e.anyCost) {
		return limiter.Decision{}, false
	}
	d := e.d
	d.RetryAfter = e.until - now
	return d, true
}

// put records that a request of cost was denied d by set at now.
func (c *denialCache) put(key string, version int64, set *limiter.Set, now, cost int64, d limiter.Decision) {
	if d.Allowed || d.RetryAfter <= 0 {
		return
	}
	anyCost := set.Len() == 1 && set.Rule(0).Algorithm == limiter.FixedWindow
	c.m.Add(denialKey{key, version}, denial{cost: cost, until: now + d.RetryAfter, anyCost: anyCost, d: d})
}

// forget drops the denial of (key, version): a refund made it stale.
func (c *denialCache) forget(key string, version int64) {
	c.m.Remove(denialKey{key, version})
}
