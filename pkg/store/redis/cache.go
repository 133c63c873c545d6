package redis

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

// maxCachedSets bounds bucketRules: past it the cache starts afresh. Sets are
// immutable and the gate keeps one per tenant while the tenant is cached, so a few
// thousand are many; the bound only keeps a process that sees many tenants from
// holding every set it ever saw.
const maxCachedSets = 4096

// bucketRules keeps the rendered arguments of bucket.lua (luascript.BucketRule) per
// rule set, so that a decision formats only what changes: the instant and the cost.
type bucketRules struct {
	margin time.Duration
	m      sync.Map // *limiter.Set -> *luascript.BucketRule
	n      atomic.Int64
}

func (c *bucketRules) get(set *limiter.Set) *luascript.BucketRule {
	if r, ok := c.m.Load(set); ok {
		return r.(*luascript.BucketRule)
	}
	r := luascript.NewBucketRule(set, c.margin)
	if c.n.Add(1) > maxCachedSets {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(set, r)
	return r
}
