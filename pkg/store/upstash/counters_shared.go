package upstash

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// This file is what pkg/store/redis, the same Counters over RESP, shares with this
// package: the scripts, the names of their keys, the layout of their KEYS and ARGV and
// the reading of their replies. Both keep one state layout, so a key decided by one
// script reads the same in the other.

//go:embed bucket.lua
var bucketSource string

// DecideScript returns decide.lua, which decides a request against a whole rule set.
func DecideScript() *upstashrest.Script { return decideScript }

// BucketScript returns bucket.lua, the fast path of decide.lua for a set that
// FastPath accepts.
func BucketScript() *upstashrest.Script { return bucketScript }

var bucketScript = upstashrest.NewScript(bucketSource)

// HashKey returns the name of the Redis hash holding every rule's state for key.
func HashKey(key string) string { return hashKey(key) }

// LogKey returns the name of the sorted set of a sliding_log rule's entries for key.
func LogKey(key, stateID string) string { return logKey(key, stateID) }

// DecideArgs returns the KEYS and ARGV of decide.lua deciding a request of cost over
// the counters of cs at now (peeking, with one counter, when consume is false), with
// ttlMargin past the instant the state goes idle (0 means 1 minute). The keys are named
// by HashKey and LogKey after each counter's Key.
func DecideArgs(cs []store.Counter, now, cost int64, consume bool, ttlMargin time.Duration) ([]string, []any) {
	return NewCounters(nil, CountersConfig{TTLMargin: ttlMargin}).scriptArgs(cs, now, cost, consume)
}

// ReadDecisions checks a reply of decide.lua over cs (5 integers per rule, counter
// after counter) and folds each counter's outcomes into outs[i] with its
// Set.Combine. A reply of the wrong shape or with impossible values is an
// upstashrest.ErrMalformedReply.
func ReadDecisions(ints []int64, cs []store.Counter, outs []limiter.Decision) error {
	rules := 0
	for _, c := range cs {
		rules += c.Set.Len()
	}
	if len(ints) != 5*rules {
		return fmt.Errorf("%w: %d integers for %d rules of %d counters", upstashrest.ErrMalformedReply, len(ints), rules, len(cs))
	}
	return combineCounters(ints, cs, outs)
}

// ReadOutcomes checks the reply of decide.lua or bucket.lua for one counter (5
// integers per rule) and converts it into outs, one Outcome per rule.
func ReadOutcomes(ints []int64, outs []limiter.Outcome) error { return readOutcomes(ints, outs) }

// ResetKeys returns the keys to delete to forget key's state, given the field names
// of its hash (HKEYS HashKey(key)): the hash, and the sorted set of each sliding_log
// rule, which the hash names in a "<state id>|z" field.
func ResetKeys(key string, fields []string) []string {
	keys := []string{hashKey(key)}
	for _, f := range fields {
		if id, ok := strings.CutSuffix(f, "|z"); ok {
			keys = append(keys, logKey(key, id))
		}
	}
	return keys
}

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
	return []string{hashKey(key)}, args
}
