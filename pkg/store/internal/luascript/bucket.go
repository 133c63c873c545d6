package luascript

import (
	"strconv"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// fastPathLimit bounds burst x period (microseconds) for bucket.lua, so that every
// product it forms stays below 2^52, where doubles are exact.
const fastPathLimit = 1 << 52

// FastPath reports whether bucket.lua decides set: one token_bucket or leaky_bucket
// rule whose burst x period (microseconds) is below 2^52. Other sets go to decide.lua.
func FastPath(set *limiter.Set) bool {
	if set.Len() != 1 {
		return false
	}
	r := set.Rule(0)
	return r.IsBucket() && r.Capacity() < fastPathLimit/r.Period.Micros()
}

// BucketRule is what bucket.lua receives for a set that FastPath accepts, with the
// arguments that do not change from one decision to the next rendered once. It is
// immutable and safe for concurrent use.
type BucketRule struct {
	q, r  int64    // the emission interval, q + r/limit microseconds
	fixed []string // ARGV[5..11]: margin, state id + "|", algorithm, limit, period, tolUS, tolFrac
}

// NewBucketRule renders the fixed arguments of bucket.lua for set, which FastPath must
// accept, with ttlMargin past the instant the state goes idle (0 means 1 minute).
func NewBucketRule(set *limiter.Set, ttlMargin time.Duration) *BucketRule {
	if ttlMargin <= 0 {
		ttlMargin = time.Minute
	}
	r := set.Rule(0)
	q, rem, tolUS, tolFrac := set.Emission(0)
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	return &BucketRule{q: q, r: rem, fixed: []string{itoa(ttlMargin.Microseconds()), r.StateID() + "|",
		strconv.Itoa(algorithmCodes[r.Algorithm]), itoa(r.Limit), itoa(r.Period.Micros()), itoa(tolUS), itoa(tolFrac)}}
}

// Args returns the KEYS and ARGV of bucket.lua deciding a request of cost for key at
// now (peeking when consume is false). The key is named by HashKey.
func (b *BucketRule) Args(key string, now, cost int64, consume bool) ([]string, []string) {
	mode := "0"
	if consume {
		mode = "1"
	}
	args := make([]string, 4+len(b.fixed))
	args[0], args[1], args[2], args[3] = strconv.FormatInt(now, 10), strconv.FormatInt(cost*b.q, 10), strconv.FormatInt(cost*b.r, 10), mode
	copy(args[4:], b.fixed)
	return []string{HashKey(key)}, args
}
