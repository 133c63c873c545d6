package redis

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

// maxCachedSets bounds bucketRules: past it the cache starts afresh. Sets are
// immutable and the gate keeps one per tenant while the tenant is cached, so a few
// thousand are many; the bound only keeps a process that sees many tenants from
// holding every set it ever saw.
const maxCachedSets = 4096

// bucketRules keeps the rendered arguments of bucket.lua (upstash.BucketRule) per
// rule set, so that a decision formats only what changes: the instant and the cost.
type bucketRules struct {
	margin time.Duration
	m      sync.Map // *limiter.Set -> *upstash.BucketRule
	n      atomic.Int64
}

func (c *bucketRules) get(set *limiter.Set) *upstash.BucketRule {
	if r, ok := c.m.Load(set); ok {
		return r.(*upstash.BucketRule)
	}
	r := upstash.NewBucketRule(set, c.margin)
	if c.n.Add(1) > maxCachedSets {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(set, r)
	return r
}
