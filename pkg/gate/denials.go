package gate

import (
	"sync"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// denialCache remembers checks known to be denied until an instant: see "The denial
// cache" in the package doc.
type denialCache struct {
	mu  sync.Mutex
	max int
	m   map[denialKey]denial
}

type denialKey struct {
	key string
	set *limiter.Set
}

type denial struct {
	cost  int64 // the cost that was denied: requests of at least this cost are denied
	until int64 // the instant a request of that cost may first be allowed
	d     limiter.Decision
}

func newDenialCache(max int) *denialCache {
	return &denialCache{max: max, m: make(map[denialKey]denial)}
}

// get returns the cached denial of (key, set) for a request of cost at now, with its
// RetryAfter recomputed; ok is false when the store must decide.
func (c *denialCache) get(key string, set *limiter.Set, now, cost int64) (limiter.Decision, bool) {
	c.mu.Lock()
	e, ok := c.m[denialKey{key, set}]
	c.mu.Unlock()
	if !ok || now >= e.until || cost < e.cost {
		return limiter.Decision{}, false
	}
	d := e.d
	d.RetryAfter = e.until - now
	return d, true
}

// put records that a request of cost was denied d at now.
func (c *denialCache) put(key string, set *limiter.Set, now, cost int64, d limiter.Decision) {
	if d.Allowed || d.RetryAfter <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := denialKey{key, set}
	if _, ok := c.m[k]; !ok && len(c.m) >= c.max {
		c.shrink(now)
	}
	c.m[k] = denial{cost: cost, until: now + d.RetryAfter, d: d}
}

// shrink drops the entries that have expired, then arbitrary ones down to 7/8 of max.
func (c *denialCache) shrink(now int64) {
	for k, e := range c.m {
		if e.until <= now {
			delete(c.m, k)
		}
	}
	for k := range c.m {
		if len(c.m) < c.max-c.max/8 {
			break
		}
		delete(c.m, k)
	}
}

func (c *denialCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
