package redis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// fastRules are bucket rules that bucket.lua decides: fractional emission intervals,
// a leaky bucket, a prime limit, and burst x period just below its bound of 2^52.
var fastRules = []string{
	`{"algorithm": "token_bucket", "limit": 3, "period": "1s", "burst": 5}`,
	`{"algorithm": "token_bucket", "limit": 7, "period": "100ms", "burst": 2}`,
	`{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 4}`,
	`{"algorithm": "token_bucket", "limit": 1680, "period": "744h", "burst": 1680}`,
	`{"algorithm": "leaky_bucket", "limit": 999983, "period": "1h", "burst": 1000000}`,
	`{"algorithm": "token_bucket", "limit": 1, "period": "744h", "burst": 117}`,
}

// TestFastPathIsExact decides traces of fastRules on one key through bucket.lua or
// decide.lua, chosen at random for each request, and peeks through either: every
// answer is the limiter's, so the two scripts share one state and bucket.lua loses
// nothing. The traces run late in 2199 with clock skew and requests of full capacity.
func TestFastPathIsExact(t *testing.T) {
	c := newTestClient(t, topologies[0].config(t))
	fast, slow := NewCounters(c, CountersConfig{}), NewCounters(c, CountersConfig{})
	slow.noFastPath = true
	ctx := context.Background()
	for i, js := range fastRules {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			set := storetest.Set(t, nil, js)
			if !luascript.FastPath(set) {
				t.Fatalf("%s does not take the fast path", js)
			}
			capacity := set.Rule(0).Capacity()
			trace := storetest.TraceFrom(limiter.Micros(time.Date(2199, 6, 1, 0, 0, 0, 0, time.UTC)), uint64(i), 300, min(capacity, 3), storetest.Burst)
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			key, ref := storetest.Key(t, "k"), set.NewStates()
			for j, r := range trace {
				if j%11 == 5 {
					r.Cost = capacity
				}
				st := []*Counters{fast, slow}[rng.IntN(2)]
				if j%5 == 0 {
					checkPeek(t, st, key, set, ref, r.At)
				}
				want, err := set.Decide(ref, r.At, r.Cost)
				if err != nil {
					t.Fatal(err)
				}
				got, err := store.DecideOne(ctx, st, key, set, r.At, r.Cost)
				if err != nil || got != want {
					t.Fatalf("request %d (cost %d, fast path %v): %+v, %v; the limiter decides %+v", j, r.Cost, !st.noFastPath, got, err, want)
				}
			}
		})
	}
}

func checkPeek(t *testing.T, st *Counters, key string, set *limiter.Set, ref []limiter.State, at int64) {
	t.Helper()
	want, _ := set.Peek(ref, at, nil)
	got, err := st.Peek(context.Background(), key, set, at, nil)
	if err != nil || got != want {
		t.Fatalf("peek at %d (fast path %v): %+v, %v; the limiter peeks %+v", at, !st.noFastPath, got, err, want)
	}
}

// TestTTLCoversTheState checks the key's TTL (PTTL) after each decision: at least the
// time until the state goes idle plus the margin, when bucket.lua skips PEXPIRE as its
// field "x" allows, and when decide.lua has written the key in between with a shorter
// TTL of its own (which must make bucket.lua set one again).
func TestTTLCoversTheState(t *testing.T) {
	const margin = 10 * time.Minute
	c := newTestClient(t, topologies[0].config(t))
	fast, slow := NewCounters(c, CountersConfig{TTLMargin: margin}), NewCounters(c, CountersConfig{TTLMargin: margin})
	slow.noFastPath = true
	// One request a minute, a burst of 30: each request moves the idle instant a minute.
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 1, "period": "1m", "burst": 30}`)
	key := storetest.Key(t, "k")
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	ref := set.NewStates()
	for i, st := range []*Counters{fast, fast, fast, slow, fast, fast, slow, slow, fast} {
		if _, err := set.Decide(ref, at, 1); err != nil {
			t.Fatal(err)
		}
		if d, err := store.DecideOne(context.Background(), st, key, set, at, 1); err != nil || !d.Allowed {
			t.Fatalf("request %d: %+v, %v", i, d, err)
		}
		idle := set.IdleAt(ref)
		want := time.Duration(idle-at)*time.Microsecond + margin
		ttl, err := c.Do(context.Background(), func(b rueidis.Builder) rueidis.Completed {
			return b.Pttl().Key(luascript.HashKey(slotKey(key))).Build()
		}).AsInt64()
		if got := time.Duration(ttl) * time.Millisecond; err != nil || got < want-time.Second {
			t.Fatalf("after request %d (fast path %v) the key lives %v (%v), want at least %v", i, !st.noFastPath, got, err, want)
		}
	}
}
