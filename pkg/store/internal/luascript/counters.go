package luascript

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// This file is what the Counters of pkg/store/upstash and pkg/store/redis share: the
// scripts, the names of their keys, the layout of their KEYS and ARGV and the reading
// of their replies. Both keep one state layout, so a key decided by one script reads
// the same in the other.

var (
	//go:embed decide.lua
	decideSource string
	//go:embed bucket.lua
	bucketSource string

	decideScript = NewScript(decideSource)
	bucketScript = NewScript(bucketSource)
)

// DecideScript returns decide.lua, which decides a request against a whole rule set.
func DecideScript() *Script { return decideScript }

// BucketScript returns bucket.lua, the fast path of decide.lua for a set that
// FastPath accepts.
func BucketScript() *Script { return bucketScript }

// Codes of the algorithms, as decide.lua reads them.
var algorithmCodes = map[limiter.Algorithm]int{
	limiter.FixedWindow: 1, limiter.SlidingWindow: 2, limiter.SlidingLog: 3,
	limiter.TokenBucket: 4, limiter.LeakyBucket: 5, limiter.Concurrency: 6,
}

// HashKey returns the name of the Redis hash holding every rule's state for key.
func HashKey(key string) string { return "el:h:" + key }

// LogKey returns the name of the sorted set of a sliding_log or concurrency rule's
// entries for key.
// The length prefix keeps it distinct from every other key's, whatever the key and id
// contain.
func LogKey(key, stateID string) string {
	return "el:l:" + strconv.Itoa(len(key)) + ":" + key + ":" + stateID
}

// MarginMS is ttlMargin in milliseconds, 0 meaning 1 minute.
func MarginMS(ttlMargin time.Duration) int64 {
	if ttlMargin <= 0 {
		ttlMargin = time.Minute
	}
	return ttlMargin.Milliseconds()
}

// DecideArgs returns the KEYS and ARGV of decide.lua deciding a request of cost over
// the counters of cs at now (peeking, with one counter, when consume is false), with
// ttlMargin past the instant the state goes idle (0 means 1 minute). KEYS holds the
// counters' hashes (HashKey), then the sorted set of each sliding_log and concurrency
// rule (LogKey); ARGV a header, then each counter's rules.
func DecideArgs(cs []store.Counter, now, cost int64, consume bool, ttlMargin time.Duration) ([]string, []any) {
	a := &args{}
	var mode int64
	if consume {
		mode = 1
	}
	for _, c := range cs {
		a.keys = append(a.keys, HashKey(c.Key))
	}
	a.argv = append(a.argv, now, cost, mode, MarginMS(ttlMargin), int64(len(cs)))
	for _, c := range cs {
		a.argv = append(a.argv, int64(c.Set.Len()))
		a.rules(c, now)
	}
	return a.keys, a.argv
}

// args are the KEYS and ARGV of decide.lua as DecideArgs lays them out.
type args struct {
	keys []string
	argv []any
}

// rules appends the 8 arguments of each rule of c to ARGV, and the sorted set of each
// sliding_log and concurrency rule to KEYS, whose index (from 1) is the rule's first
// parameter.
func (a *args) rules(c store.Counter, now int64) {
	set := c.Set
	for i := range set.Len() {
		r := set.Rule(i)
		id := r.StateID()
		var p1, p2, p3, p4 int64
		switch r.Algorithm {
		case limiter.FixedWindow:
			p1, p2 = set.Window(i, now)
			if r.Anchor == limiter.AnchorFirstRequest {
				p3 = 1
			}
			if r.Period.IsCalendar() {
				p4 = limiter.CalendarGrace
			}
		case limiter.SlidingLog:
			a.keys = append(a.keys, LogKey(c.Key, id))
			p1 = int64(len(a.keys))
		case limiter.TokenBucket, limiter.LeakyBucket:
			p1, p2, p3, p4 = set.Emission(i)
		case limiter.Concurrency:
			a.keys = append(a.keys, LogKey(c.Key, id))
			p1, p2 = int64(len(a.keys)), r.Lease.Micros()
			p3 = (p2 + limiter.LeaseQuanta - 1) / limiter.LeaseQuanta // the quantum of limiter.Set.SlotExpiry
		}
		a.argv = append(a.argv, int64(algorithmCodes[r.Algorithm]), id, r.Limit, r.Period.Micros(), p1, p2, p3, p4)
	}
}

// ReadDecisions checks a reply of decide.lua over cs (5 integers per rule, counter
// after counter) and folds each counter's outcomes into outs[i] with its
// Set.Combine. A reply of the wrong shape or with impossible values is an
// ErrMalformedReply.
func ReadDecisions(ints []int64, cs []store.Counter, outs []limiter.Decision) error {
	rules := 0
	for _, c := range cs {
		rules += c.Set.Len()
	}
	if len(ints) != 5*rules {
		return fmt.Errorf("%w: %d integers for %d rules of %d counters", ErrMalformedReply, len(ints), rules, len(cs))
	}
	var buf [limiter.MaxRules]limiter.Outcome
	for i, c := range cs {
		n := c.Set.Len()
		if err := ReadOutcomes(ints[:5*n], buf[:n]); err != nil {
			return fmt.Errorf("counter %d: %w", i, err)
		}
		outs[i] = c.Set.Combine(buf[:n])
		ints = ints[5*n:]
	}
	return nil
}

// ReadOutcomes checks the reply of decide.lua or bucket.lua for one counter (5
// integers per rule) and converts it into outs, one Outcome per rule.
func ReadOutcomes(ints []int64, outs []limiter.Outcome) error {
	if len(ints) != 5*len(outs) {
		return fmt.Errorf("%w: %d integers for %d rules", ErrMalformedReply, len(ints), len(outs))
	}
	for i := range outs {
		v := ints[5*i : 5*i+5]
		if fault := outcomeFault(v); fault != "" {
			return fmt.Errorf("%w: rule %d: %s", ErrMalformedReply, i, fault)
		}
		outs[i] = limiter.Outcome{Allowed: v[0] == 1, Remaining: v[1], Reset: v[2], RetryAfter: v[3], Delay: v[4]}
	}
	return nil
}

// outcomeFault names what is impossible in a rule's 5 integers (allowed, remaining,
// reset, retry after, delay), or returns "". It names the field, not its value: the
// values are a counter's stored state.
func outcomeFault(v []int64) string {
	switch {
	case v[0] != 0 && v[0] != 1:
		return "allowed is neither 0 nor 1"
	case v[1] < 0:
		return "negative remaining"
	case v[3] < 0:
		return "negative retry after"
	case v[4] < 0:
		return "negative delay"
	case (v[0] == 1) != (v[3] == 0):
		return "retry after disagrees with allowed"
	}
	return ""
}
