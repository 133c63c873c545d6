package upstash

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

var _ store.Counters = (*Counters)(nil)

//go:embed decide.lua
var decideSource string

// decideScript decides one request against every counter it touches: see decide.lua.
var decideScript = upstashrest.NewScript(decideSource)

// upstashrest.Script codes of the algorithms, as decide.lua reads them.
var algorithmCodes = map[limiter.Algorithm]int{
	limiter.FixedWindow: 1, limiter.SlidingWindow: 2, limiter.SlidingLog: 3,
	limiter.TokenBucket: 4, limiter.LeakyBucket: 5,
}

// CountersConfig configures a Counters. Its zero value means the defaults.
type CountersConfig struct {
	// TTLMargin is how long past the instant its state goes idle a key is kept, to
	// absorb clock differences between callers and the server; 0 means 1 minute.
	TTLMargin time.Duration
}

// Counters is the store.Counters over Upstash Redis: one EVALSHA of decide.lua per
// decision, over every counter of the request. Create it with NewCounters.
type Counters struct {
	client   *upstashrest.Client
	script   *upstashrest.Script
	marginMS int64
}

// NewCounters returns a Counters that sends its commands through client.
func NewCounters(client *upstashrest.Client, cfg CountersConfig) *Counters {
	margin := cfg.TTLMargin
	if margin <= 0 {
		margin = time.Minute
	}
	return &Counters{client: client, script: decideScript, marginMS: margin.Milliseconds()}
}

// hashKey is the Redis hash holding every rule's state for key.
func hashKey(key string) string { return string(appendHashKey(nil, key)) }

func appendHashKey(dst []byte, key string) []byte { return append(append(dst, "el:h:"...), key...) }

// logKey is the sorted set of a sliding_log rule's entries for key. The length
// prefix keeps it distinct from every other key's, whatever the key and id contain.
func logKey(key, stateID string) string { return string(appendLogKey(nil, key, stateID)) }

func appendLogKey(dst []byte, key, stateID string) []byte {
	dst = strconv.AppendInt(append(dst, "el:l:"...), int64(len(key)), 10)
	return append(append(append(append(dst, ':'), key...), ':'), stateID...)
}

// Decide decides a request of cost against the counters of cs at now, all of them in
// one script call (one round trip when the server's script cache is warm); see
// store.Counters. On an error outs are zero.
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	var buf [replyInts]int64
	ints, err := s.eval(ctx, cs, now, cost, true, buf[:0])
	if err == nil {
		err = combineCounters(ints, cs, outs)
	}
	if err != nil {
		clear(outs)
		return fmt.Errorf("upstash: decide %s: %w", counterKeys(cs), err)
	}
	return nil
}

// Peek reports what a request of cost 1 would get at now, without consuming: the
// script with one counter, in peek mode.
func (s *Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := store.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	cs := [1]store.Counter{{Key: key, Set: set}}
	var ibuf [replyInts]int64
	ints, err := s.eval(ctx, cs[:], now, 1, false, ibuf[:0])
	var buf [limiter.MaxRules]limiter.Outcome
	if err == nil {
		err = readOutcomes(ints, buf[:set.Len()])
	}
	if err != nil {
		return limiter.Decision{}, fmt.Errorf("upstash: peek %q: %w", key, err)
	}
	if len(outs) >= set.Len() {
		copy(outs, buf[:set.Len()])
	}
	return set.Combine(buf[:set.Len()]), nil
}

// Reset deletes key's hash and the sorted sets of its sliding logs, which the hash
// names in its "<id>|z" fields: two round trips, for an operation that is rare.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	reply, err := s.client.Do(ctx, "HKEYS", hashKey(key))
	if err != nil {
		return fmt.Errorf("upstash: reset %q: %w", key, err)
	}
	fields, err := reply.Array()
	if err != nil {
		return fmt.Errorf("upstash: reset %q: %w", key, err)
	}
	del := []any{"DEL", hashKey(key)}
	for _, f := range fields {
		name, err := f.String()
		if err != nil {
			return fmt.Errorf("upstash: reset %q: %w", key, err)
		}
		if id, ok := strings.CutSuffix(name, "|z"); ok {
			del = append(del, logKey(key, id))
		}
	}
	if _, err := s.client.Do(ctx, del...); err != nil {
		return fmt.Errorf("upstash: reset %q: %w", key, err)
	}
	return nil
}

// replyInts is the most integers decide.lua answers: 5 per rule of every counter.
const replyInts = 5 * limiter.MaxRules * store.MaxCounters

// eval runs decide.lua over cs and appends its reply to ints: 5 integers per rule,
// counter after counter, checked for their number.
func (s *Counters) eval(ctx context.Context, cs []store.Counter, now, cost int64, consume bool, ints []int64) ([]int64, error) {
	a := restArgsPool.Get().(*restArgs)
	a.reset()
	layoutArgs(a, cs, now, cost, consume, s.marginMS)
	reply, err := s.client.EvalArgs(ctx, s.script, &a.keys, &a.args)
	restArgsPool.Put(a)
	if err != nil {
		return nil, err
	}
	elems, err := reply.Array()
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		n, err := e.Int64()
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		ints = append(ints, n)
	}
	rules := 0
	for _, c := range cs {
		rules += c.Set.Len()
	}
	if len(ints) != 5*rules {
		return nil, fmt.Errorf("%w: %d integers for %d rules of %d counters", upstashrest.ErrMalformedReply, len(ints), rules, len(cs))
	}
	return ints, nil
}

// scriptArgs lays out KEYS and ARGV as decide.lua reads them (layoutArgs), for a
// client that takes them as slices (go-redis).
func (s *Counters) scriptArgs(cs []store.Counter, now, cost int64, consume bool) ([]string, []any) {
	nkeys, nargs := len(cs), 5
	for _, c := range cs {
		nkeys += logRules(c.Set)
		nargs += 1 + 8*c.Set.Len()
	}
	a := &sliceArgs{keys: make([]string, 0, nkeys), args: make([]any, 0, nargs)}
	layoutArgs(a, cs, now, cost, consume, s.marginMS)
	return a.keys, a.args
}

// argSink receives the KEYS and ARGV of decide.lua from layoutArgs, in order.
type argSink interface {
	hashKey(key string)             // appends hashKey(key) to KEYS
	logKey(key, stateID string) int // appends logKey(key, stateID) to KEYS; returns len(KEYS)
	int(n int64)                    // appends n to ARGV
	str(s string)                   // appends s to ARGV
}

// layoutArgs lays out KEYS and ARGV as decide.lua reads them: KEYS holds the counters'
// hashes, then the sorted set of each sliding_log rule; ARGV a header, then each
// counter's rules.
func layoutArgs(a argSink, cs []store.Counter, now, cost int64, consume bool, marginMS int64) {
	var mode int64
	if consume {
		mode = 1
	}
	for _, c := range cs {
		a.hashKey(c.Key)
	}
	nkeys := len(cs)
	for _, v := range [...]int64{now, cost, mode, marginMS, int64(len(cs))} {
		a.int(v)
	}
	for _, c := range cs {
		a.int(int64(c.Set.Len()))
		nkeys = ruleArgs(a, c, now, nkeys)
	}
}

// logRules counts set's sliding_log rules, each of which has a sorted set.
func logRules(set *limiter.Set) int {
	n := 0
	for i := range set.Len() {
		if set.Rule(i).Algorithm == limiter.SlidingLog {
			n++
		}
	}
	return n
}

// ruleArgs appends the 8 arguments of each rule of c to ARGV, and the sorted set of
// each sliding_log rule to KEYS, which holds nkeys keys; it returns how many it holds
// after.
func ruleArgs(a argSink, c store.Counter, now int64, nkeys int) int {
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
			nkeys = a.logKey(c.Key, id)
			p1 = int64(nkeys)
		case limiter.TokenBucket, limiter.LeakyBucket:
			p1, p2, p3, p4 = set.Emission(i)
		}
		a.int(int64(algorithmCodes[r.Algorithm]))
		a.str(id)
		for _, v := range [...]int64{r.Limit, r.Period.Micros(), p1, p2, p3, p4} {
			a.int(v)
		}
	}
	return nkeys
}

// sliceArgs is the argSink of scriptArgs.
type sliceArgs struct {
	keys []string
	args []any
}

func (a *sliceArgs) hashKey(key string) { a.keys = append(a.keys, hashKey(key)) }
func (a *sliceArgs) logKey(key, id string) int {
	a.keys = append(a.keys, logKey(key, id))
	return len(a.keys)
}
func (a *sliceArgs) int(n int64)  { a.args = append(a.args, n) }
func (a *sliceArgs) str(s string) { a.args = append(a.args, s) }

// restArgs is the argSink of eval: the REST client's encoded arguments, reused
// through restArgsPool.
type restArgs struct {
	keys, args upstashrest.Args
	name       []byte // a key's name being built
}

var restArgsPool = sync.Pool{New: func() any { return new(restArgs) }}

func (a *restArgs) reset() { a.keys.Reset(); a.args.Reset() }

func (a *restArgs) hashKey(key string) {
	a.name = appendHashKey(a.name[:0], key)
	a.keys.AppendBytes(a.name)
}

func (a *restArgs) logKey(key, id string) int {
	a.name = appendLogKey(a.name[:0], key, id)
	a.keys.AppendBytes(a.name)
	return a.keys.Len()
}

func (a *restArgs) int(n int64)  { a.args.AppendInt(n) }
func (a *restArgs) str(s string) { a.args.AppendString(s) }

// combineCounters reads the script's reply, whose length eval checked, into one
// Outcome per rule and folds each counter's with its Set.Combine into outs.
func combineCounters(ints []int64, cs []store.Counter, outs []limiter.Decision) error {
	var buf [limiter.MaxRules]limiter.Outcome
	for i, c := range cs {
		n := c.Set.Len()
		if err := readOutcomes(ints[:5*n], buf[:n]); err != nil {
			return fmt.Errorf("counter %d: %w", i, err)
		}
		outs[i] = c.Set.Combine(buf[:n])
		ints = ints[5*n:]
	}
	return nil
}

// readOutcomes checks one counter's part of the reply (5 integers per rule) and
// converts it.
func readOutcomes(ints []int64, outs []limiter.Outcome) error {
	if len(ints) != 5*len(outs) {
		return fmt.Errorf("%w: %d integers for %d rules", upstashrest.ErrMalformedReply, len(ints), len(outs))
	}
	for i := range outs {
		v := ints[5*i : 5*i+5]
		if v[0] != 0 && v[0] != 1 || v[1] < 0 || v[3] < 0 || v[4] < 0 || (v[0] == 1) != (v[3] == 0) {
			// A copy, so that the reply, often on the caller's stack, stays there.
			return fmt.Errorf("%w: rule %d: outcome %v", upstashrest.ErrMalformedReply, i, [5]int64(v))
		}
		outs[i] = limiter.Outcome{Allowed: v[0] == 1, Remaining: v[1], Reset: v[2], RetryAfter: v[3], Delay: v[4]}
	}
	return nil
}

// counterKeys quotes the keys of cs for an error message.
func counterKeys(cs []store.Counter) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = strconv.Quote(c.Key)
	}
	return strings.Join(q, ", ")
}
