package upstash

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

var _ backends.Store = (*Store)(nil)

//go:embed decide.lua
var decideSource string

// decideScript decides one request against a whole rule set: see decide.lua.
var decideScript = NewScript(decideSource)

// Script codes of the algorithms, as decide.lua reads them.
var algorithmCodes = map[limiter.Algorithm]int{
	limiter.FixedWindow: 1, limiter.SlidingWindow: 2, limiter.SlidingLog: 3,
	limiter.TokenBucket: 4, limiter.LeakyBucket: 5,
}

// StoreConfig configures a Store. Its zero value means the defaults.
type StoreConfig struct {
	// TTLMargin is how long past the instant its state goes idle a key is kept, to
	// absorb clock differences between callers and the server; 0 means 1 minute.
	TTLMargin time.Duration
}

// Store is the backends.Store over Upstash Redis: one EVALSHA of decide.lua per
// decision. Create it with NewStore.
type Store struct {
	client   *Client
	script   *Script
	marginMS int64
}

// NewStore returns a Store that sends its commands through client.
func NewStore(client *Client, cfg StoreConfig) *Store {
	margin := cfg.TTLMargin
	if margin <= 0 {
		margin = time.Minute
	}
	return &Store{client: client, script: decideScript, marginMS: margin.Milliseconds()}
}

// hashKey is the Redis hash holding every rule's state for key.
func hashKey(key string) string { return "el:h:" + key }

// logKey is the sorted set of a sliding_log rule's entries for key. The length
// prefix keeps it distinct from every other key's, whatever the key and id contain.
func logKey(key, stateID string) string {
	return "el:l:" + strconv.Itoa(len(key)) + ":" + key + ":" + stateID
}

// Decide decides a request of cost against the counters of cs at now; see
// backends.Store.
func (s *Store) Decide(ctx context.Context, cs []backends.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := backends.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	if len(cs) > 1 {
		return fmt.Errorf("upstash: a decision over %d counters is not supported yet", len(cs))
	}
	d, err := s.decideOne(ctx, cs[0].Key, cs[0].Set, now, cost)
	outs[0] = d
	return err
}

// Decide decides a request of cost for key against set at now in one script call.
func (s *Store) decideOne(ctx context.Context, key string, set *limiter.Set, now, cost int64) (limiter.Decision, error) {
	if err := backends.CheckRequest(key, set, now, cost); err != nil {
		return limiter.Decision{}, err
	}
	var outs [limiter.MaxRules]limiter.Outcome
	if err := s.eval(ctx, key, set, now, cost, true, outs[:set.Len()]); err != nil {
		return limiter.Decision{}, err
	}
	return set.Combine(outs[:set.Len()]), nil
}

// Peek reports what a request of cost 1 would get at now, without consuming.
func (s *Store) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := backends.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	var buf [limiter.MaxRules]limiter.Outcome
	if err := s.eval(ctx, key, set, now, 1, false, buf[:set.Len()]); err != nil {
		return limiter.Decision{}, err
	}
	if len(outs) >= set.Len() {
		copy(outs, buf[:set.Len()])
	}
	return set.Combine(buf[:set.Len()]), nil
}

// Reset deletes key's hash and the sorted sets of its sliding logs, which the hash
// names in its "<id>|z" fields: two round trips, for an operation that is rare.
func (s *Store) Reset(ctx context.Context, key string) error {
	if err := backends.CheckKey(key); err != nil {
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

// eval runs decide.lua and reads one Outcome per rule into outs.
func (s *Store) eval(ctx context.Context, key string, set *limiter.Set, now, cost int64, consume bool, outs []limiter.Outcome) error {
	keys, args := s.scriptArgs(key, set, now, cost, consume)
	reply, err := s.client.Eval(ctx, s.script, keys, args...)
	if err != nil {
		return fmt.Errorf("upstash: decide %q: %w", key, err)
	}
	ints, err := reply.Int64s()
	if err != nil {
		return fmt.Errorf("upstash: decide %q: %w", key, err)
	}
	if err := readOutcomes(ints, outs); err != nil {
		return fmt.Errorf("upstash: decide %q: %w", key, err)
	}
	return nil
}

// scriptArgs lays out KEYS and ARGV as decide.lua reads them.
func (s *Store) scriptArgs(key string, set *limiter.Set, now, cost int64, consume bool) ([]string, []any) {
	keys := []string{hashKey(key)}
	mode := "0"
	if consume {
		mode = "1"
	}
	args := make([]any, 0, 5+8*set.Len())
	args = append(args, now, cost, mode, set.Len(), s.marginMS)
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
			keys = append(keys, logKey(key, id))
			p1 = int64(len(keys))
		case limiter.TokenBucket, limiter.LeakyBucket:
			p1, p2, p3, p4 = set.Emission(i)
		}
		args = append(args, algorithmCodes[r.Algorithm], id, r.Limit, r.Period.Micros(), p1, p2, p3, p4)
	}
	return keys, args
}

// readOutcomes checks the script's reply (5 integers per rule) and converts it.
func readOutcomes(ints []int64, outs []limiter.Outcome) error {
	if len(ints) != 5*len(outs) {
		return fmt.Errorf("%w: %d integers for %d rules", ErrMalformedReply, len(ints), len(outs))
	}
	for i := range outs {
		v := ints[5*i : 5*i+5]
		if v[0] != 0 && v[0] != 1 || v[1] < 0 || v[3] < 0 || v[4] < 0 || (v[0] == 1) != (v[3] == 0) {
			return fmt.Errorf("%w: rule %d: outcome %v", ErrMalformedReply, i, v)
		}
		outs[i] = limiter.Outcome{Allowed: v[0] == 1, Remaining: v[1], Reset: v[2], RetryAfter: v[3], Delay: v[4]}
	}
	return nil
}
