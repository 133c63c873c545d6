package luascript

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// CountersConn carries the commands of a store's Counters to Redis: over the Upstash
// REST API (pkg/store/upstash) or over RESP (pkg/store/redis). Each method is one
// round trip, a script's two when the server's script cache does not hold it.
type CountersConn interface {
	// Eval runs a script whose answer is an integer.
	Eval(ctx context.Context, script *Script, keys []string, args ...any) (int64, error)
	// Ints runs a script whose answer is an array of integers.
	Ints(ctx context.Context, script *Script, keys []string, args ...any) ([]int64, error)
	// HKeys returns the field names of the hash key.
	HKeys(ctx context.Context, key string) ([]string, error)
	// Del deletes keys.
	Del(ctx context.Context, keys []string) error
}

// Counters is what the Counters of both stores do over their CountersConn: decide.lua
// over every counter of a request, in one script call, and the settle script. Each
// checks what it receives as store.Counters and store.Settler define it, and its errors
// start with Name and quote the counters' keys.
type Counters struct {
	Conn CountersConn
	// Name starts the errors: "upstash", "redis".
	Name string
	// Key returns the name under which a counter's key is stored (the Redis store puts
	// its hash tag in front); nil keeps the key.
	Key func(string) string
	// Margin is how long past the instant its state goes idle a key is kept; 0 means 1
	// minute.
	Margin time.Duration
	// DecideScript and SettleScript are decide.lua and the settle script (tests replace
	// them).
	DecideScript, SettleScript *Script
}

// NewCounters returns Counters over conn with decide.lua and the settle script.
func NewCounters(conn CountersConn, name string, key func(string) string, margin time.Duration) Counters {
	return Counters{Conn: conn, Name: name, Key: key, Margin: margin, DecideScript: decideScript, SettleScript: settleScript}
}

// Decide is store.Counters.Decide with decide.lua. On an error outs are zero.
func (s Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	ints, err := s.decide(ctx, cs, now, cost, true)
	if err == nil {
		err = ReadDecisions(ints, cs, outs)
	}
	if err != nil {
		clear(outs)
		return fmt.Errorf("%s: decide %s: %w", s.Name, counterKeys(cs), err)
	}
	return nil
}

// Peek is store.Counters.Peek with decide.lua over one counter, in peek mode.
func (s Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	if err := store.CheckRequest(key, set, now, 1); err != nil {
		return limiter.Decision{}, err
	}
	ints, err := s.decide(ctx, []store.Counter{{Key: key, Set: set}}, now, 1, false)
	var rules [limiter.MaxRules]limiter.Outcome
	if err == nil {
		err = ReadOutcomes(ints, rules[:set.Len()])
	}
	if err != nil {
		return limiter.Decision{}, fmt.Errorf("%s: peek %q: %w", s.Name, key, err)
	}
	if len(outs) >= set.Len() {
		copy(outs, rules[:set.Len()])
	}
	return set.Combine(rules[:set.Len()]), nil
}

// decide runs decide.lua over cs (peeking, with one counter, when consume is false).
func (s Counters) decide(ctx context.Context, cs []store.Counter, now, cost int64, consume bool) ([]int64, error) {
	var buf [store.MaxCounters]store.Counter
	keys, args := DecideArgs(s.stored(&buf, cs), now, cost, consume, s.Margin)
	return s.Conn.Ints(ctx, s.DecideScript, keys, args...)
}

// Reset is store.Counters.Reset: HKEYS of the key's hash, then DEL of the hash and of
// the sorted set of each sliding_log rule, which the hash names in a "<state id>|z"
// field.
func (s Counters) Reset(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	sk := s.storedKey(key)
	fields, err := s.Conn.HKeys(ctx, HashKey(sk))
	if err == nil {
		keys := []string{HashKey(sk)}
		for _, f := range fields {
			if id, ok := strings.CutSuffix(f, "|z"); ok {
				keys = append(keys, LogKey(sk, id))
			}
		}
		err = s.Conn.Del(ctx, keys)
	}
	if err != nil {
		return fmt.Errorf("%s: reset %q: %w", s.Name, key, err)
	}
	return nil
}

// storedKey returns the name under which key is stored (Key).
func (s Counters) storedKey(key string) string {
	if s.Key == nil {
		return key
	}
	return s.Key(key)
}

// stored returns cs with each key under the name it is stored under, in buf.
func (s Counters) stored(buf *[store.MaxCounters]store.Counter, cs []store.Counter) []store.Counter {
	named := buf[:len(cs)]
	for i, c := range cs {
		named[i] = store.Counter{Key: s.storedKey(c.Key), Set: c.Set}
	}
	return named
}

// counterKeys quotes the keys of cs for an error message.
func counterKeys(cs []store.Counter) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = strconv.Quote(c.Key)
	}
	return strings.Join(q, ", ")
}
