package luascript

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
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
func HashKey(key string) string { return string(AppendHashKey(nil, key)) }

// AppendHashKey appends HashKey(key) to dst.
func AppendHashKey(dst []byte, key string) []byte { return append(append(dst, "el:h:"...), key...) }

// LogKey returns the name of the sorted set of a sliding_log or concurrency rule's
// entries for key.
// The length prefix keeps it distinct from every other key's, whatever the key and id
// contain.
func LogKey(key, stateID string) string { return string(AppendLogKey(nil, key, stateID)) }

// AppendLogKey appends LogKey(key, stateID) to dst.
func AppendLogKey(dst []byte, key, stateID string) []byte {
	dst = strconv.AppendInt(append(dst, "el:l:"...), int64(len(key)), 10)
	return append(append(append(append(dst, ':'), key...), ':'), stateID...)
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
// ttlMargin past the instant the state goes idle (0 means 1 minute). The keys are named
// by HashKey and LogKey after each counter's Key.
func DecideArgs(cs []store.Counter, now, cost int64, consume bool, ttlMargin time.Duration) ([]string, []any) {
	nkeys, nargs := len(cs), 5
	for _, c := range cs {
		nkeys += sortedSets(c.Set)
		nargs += 1 + 8*c.Set.Len()
	}
	a := &sliceArgs{keys: make([]string, 0, nkeys), args: make([]any, 0, nargs)}
	LayoutArgs(a, cs, now, cost, consume, MarginMS(ttlMargin))
	return a.keys, a.args
}

// ArgSink receives the KEYS and ARGV of decide.lua from LayoutArgs, in order.
type ArgSink interface {
	HashKey(key string)             // appends HashKey(key) to KEYS
	LogKey(key, stateID string) int // appends LogKey(key, stateID) to KEYS; returns len(KEYS)
	Int(n int64)                    // appends n to ARGV
	Str(s string)                   // appends s to ARGV
}

// LayoutArgs lays out KEYS and ARGV as decide.lua reads them: KEYS holds the counters'
// hashes, then the sorted set of each sliding_log and concurrency rule; ARGV a header,
// then each counter's rules.
func LayoutArgs(a ArgSink, cs []store.Counter, now, cost int64, consume bool, marginMS int64) {
	var mode int64
	if consume {
		mode = 1
	}
	for _, c := range cs {
		a.HashKey(c.Key)
	}
	nkeys := len(cs)
	for _, v := range [...]int64{now, cost, mode, marginMS, int64(len(cs))} {
		a.Int(v)
	}
	for _, c := range cs {
		a.Int(int64(c.Set.Len()))
		nkeys = ruleArgs(a, c, now, nkeys)
	}
}

// sortedSets counts set's sliding_log and concurrency rules, each of which has a
// sorted set.
func sortedSets(set *limiter.Set) int {
	n := 0
	for i := range set.Len() {
		if a := set.Rule(i).Algorithm; a == limiter.SlidingLog || a == limiter.Concurrency {
			n++
		}
	}
	return n
}

// ruleArgs appends the 8 arguments of each rule of c to ARGV, and the sorted set of
// each sliding_log and concurrency rule to KEYS, which holds nkeys keys; it returns how many it holds
// after.
func ruleArgs(a ArgSink, c store.Counter, now int64, nkeys int) int {
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
			nkeys = a.LogKey(c.Key, id)
			p1 = int64(nkeys)
		case limiter.TokenBucket, limiter.LeakyBucket:
			p1, p2, p3, p4 = set.Emission(i)
		case limiter.Concurrency:
			nkeys = a.LogKey(c.Key, id)
			p1, p2 = int64(nkeys), r.Lease.Micros()
			p3 = (p2 + limiter.LeaseQuanta - 1) / limiter.LeaseQuanta // the quantum of limiter.Set.SlotExpiry
		}
		a.Int(int64(algorithmCodes[r.Algorithm]))
		a.Str(id)
		for _, v := range [...]int64{r.Limit, r.Period.Micros(), p1, p2, p3, p4} {
			a.Int(v)
		}
	}
	return nkeys
}

// sliceArgs is the ArgSink of DecideArgs.
type sliceArgs struct {
	keys []string
	args []any
}

func (a *sliceArgs) HashKey(key string) { a.keys = append(a.keys, HashKey(key)) }
func (a *sliceArgs) LogKey(key, id string) int {
	a.keys = append(a.keys, LogKey(key, id))
	return len(a.keys)
}
func (a *sliceArgs) Int(n int64)  { a.args = append(a.args, n) }
func (a *sliceArgs) Str(s string) { a.args = append(a.args, s) }

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

// ResetKeys returns the keys to delete to forget key's state, given the field names
// of its hash (HKEYS HashKey(key)): the hash, and the sorted set of each sliding_log
// rule, which the hash names in a "<state id>|z" field.
func ResetKeys(key string, fields []string) []string {
	keys := []string{HashKey(key)}
	for _, f := range fields {
		if id, ok := strings.CutSuffix(f, "|z"); ok {
			keys = append(keys, LogKey(key, id))
		}
	}
	return keys
}
