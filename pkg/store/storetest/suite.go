package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// CountersOptions describes what a backend does not support, so the suite skips only that.
type CountersOptions struct {
	// MaxLogLimit is the largest sliding_log limit the backend accepts; 0 means no cap
	// beyond limiter.MaxLimit.
	MaxLogLimit int64
}

// RunCounters runs the whole suite against store. The store may be shared by every subtest and
// hold data from earlier runs: each subtest uses keys of its own.
func RunCounters(t *testing.T, st store.Counters, opts CountersOptions) {
	t.Run("Traces", func(t *testing.T) { testTraces(t, st) })
	t.Run("RuleSet", func(t *testing.T) { testRuleSet(t, st) })
	t.Run("Calendar", func(t *testing.T) { testCalendar(t, st) })
	t.Run("Peek", func(t *testing.T) { testPeek(t, st) })
	t.Run("Reset", func(t *testing.T) { testReset(t, st) })
	t.Run("KeysIndependent", func(t *testing.T) { testKeysIndependent(t, st) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, st) })
	t.Run("BadInputOtherSet", func(t *testing.T) { testBadInputOtherSet(t, st) })
	t.Run("RuleEdit", func(t *testing.T) { testRuleEdit(t, st) })
	t.Run("Extremes", func(t *testing.T) { testExtremes(t, st, opts) })
	t.Run("Bounds", func(t *testing.T) { testBounds(t, st, opts) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, st) })
	t.Run("Counters", func(t *testing.T) { testCounters(t, st) })
	t.Run("Atomicity", func(t *testing.T) { testAtomicity(t, st) })
	t.Run("CounterInput", func(t *testing.T) { testCounterInput(t, st) })
}

// Key returns a key no other test or earlier run uses. It is a counter key as the gate
// makes them (tenant.CounterKey), and the keys of one test share its tenant, as the
// counters of one request do: a store that keeps a tenant's counters together (a
// Redis Cluster hash slot) can decide them as one.
func Key(t testing.TB, name string) string {
	var b [6]byte
	rand.Read(b[:])
	return tenant.CounterKey("storetest:"+strings.ReplaceAll(t.Name(), "/", "."), 0, name, hex.EncodeToString(b[:]))
}

// Set builds a rule set from JSON rules, following zone (nil: UTC).
func Set(t testing.TB, zone *limiter.Zone, rules ...string) *limiter.Set {
	t.Helper()
	s, err := parseSet(zone, rules)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parseSet is Set's work: the rule set of JSON rules, or the first error.
func parseSet(zone *limiter.Zone, rules []string) (*limiter.Set, error) {
	parsed := make([]limiter.Rule, len(rules))
	for i, js := range rules {
		r, err := limiter.ParseRule([]byte(js))
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", js, err)
		}
		parsed[i] = r
	}
	return limiter.NewSet(parsed, zone)
}

// replay decides reqs through store and through pkg/limiter on one key, requiring
// identical decisions, and returns the reference states.
func replay(t *testing.T, st store.Counters, key string, set *limiter.Set, ref []limiter.State, reqs []Request) []limiter.State {
	t.Helper()
	if ref == nil {
		ref = set.NewStates()
	}
	ctx := context.Background()
	for i, r := range reqs {
		want, err := set.Decide(ref, r.At, r.Cost)
		if err != nil {
			t.Fatalf("reference, request %d: %v", i, err)
		}
		got, err := store.DecideOne(ctx, st, key, set, r.At, r.Cost)
		if err != nil {
			t.Fatalf("request %d (at %d, cost %d): %v", i, r.At, r.Cost, err)
		}
		if got != want {
			t.Fatalf("request %d (at %s, cost %d): store decided\n  %+v\nthe limiter decides\n  %+v", i, limiter.Time(r.At).Format(time.RFC3339Nano), r.Cost, got, want)
		}
	}
	return ref
}

// traceRules cover every algorithm, fractional emission intervals and anchors.
var traceRules = []string{
	`{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`,
	`{"algorithm": "fixed_window", "limit": 3, "period": "700ms", "anchor": "first_request"}`,
	`{"algorithm": "sliding_log", "limit": 5, "period": "1s"}`,
	`{"algorithm": "sliding_window", "limit": 7, "period": "1s"}`,
	`{"algorithm": "sliding_window", "limit": 4, "period": "333ms"}`,
	`{"algorithm": "token_bucket", "limit": 3, "period": "1s", "burst": 5}`,
	`{"algorithm": "token_bucket", "limit": 7, "period": "100ms", "burst": 2}`,
	`{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 4}`,
}

func testTraces(t *testing.T, st store.Counters) {
	for i, js := range traceRules {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			set := Set(t, nil, js)
			replay(t, st, Key(t, "k"), set, nil, Trace(uint64(i), 150, min(3, set.Rule(0).Capacity()), Burst))
		})
	}
}

func testRuleSet(t *testing.T, st store.Counters) {
	set := Set(t, nil,
		`{"name": "window", "algorithm": "fixed_window", "limit": 10, "period": "1s"}`,
		`{"name": "burst", "algorithm": "token_bucket", "limit": 8, "period": "1s", "burst": 6}`,
		`{"name": "log", "algorithm": "sliding_log", "limit": 9, "period": "2s"}`,
		`{"name": "counter", "algorithm": "sliding_window", "limit": 12, "period": "1500ms"}`,
		`{"name": "queue", "algorithm": "leaky_bucket", "limit": 20, "period": "1s", "burst": 8}`)
	replay(t, st, Key(t, "k"), set, nil, Trace(11, 300, 3, Burst))
}

func testCalendar(t *testing.T, st store.Counters) {
	ny, _ := time.LoadLocation("America/New_York")
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	rules := []string{
		`{"name": "daily", "algorithm": "fixed_window", "limit": 6, "period": "day"}`,
		`{"name": "weekly", "algorithm": "fixed_window", "limit": 25, "period": "week"}`,
		`{"name": "monthly", "algorithm": "fixed_window", "limit": 60, "period": "month"}`,
	}
	// Across New York's fall-back day (25 hours) and a month end.
	start := limiter.Micros(time.Date(2026, 10, 29, 20, 0, 0, 0, time.UTC))
	trace := TraceFrom(start, 21, 250, 1, Hourly)
	t.Run("NewYork", func(t *testing.T) {
		replay(t, st, Key(t, "k"), Set(t, limiter.FixedZone(ny), rules...), nil, trace)
	})
	t.Run("ZoneChange", func(t *testing.T) {
		key := Key(t, "k")
		half := len(trace) / 2
		ref := replay(t, st, key, Set(t, limiter.FixedZone(ny), rules...), nil, trace[:half])
		zone, err := limiter.NewZone(ny, limiter.ZoneChange{At: trace[half].At, Loc: tokyo})
		if err != nil {
			t.Fatal(err)
		}
		replay(t, st, key, Set(t, zone, rules...), ref, trace[half:])
	})
}

func testPeek(t *testing.T, st store.Counters) {
	ctx := context.Background()
	set := Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 10, "period": "1s"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 3}`,
		`{"name": "l", "algorithm": "sliding_log", "limit": 4, "period": "1s"}`)
	key := Key(t, "k")
	trace := Trace(5, 60, 1, Burst)
	ref := set.NewStates()
	for i, r := range trace {
		wantOuts, gotOuts := make([]limiter.Outcome, 3), make([]limiter.Outcome, 3)
		want, _ := set.Peek(ref, r.At, wantOuts)
		got, err := st.Peek(ctx, key, set, r.At, gotOuts)
		if err != nil {
			t.Fatalf("peek %d: %v", i, err)
		}
		if got != want || fmt.Sprint(gotOuts) != fmt.Sprint(wantOuts) {
			t.Fatalf("peek %d: store %+v %+v, limiter %+v %+v", i, got, gotOuts, want, wantOuts)
		}
		ref = replay(t, st, key, set, ref, trace[i:i+1])
	}
}

func testReset(t *testing.T, st store.Counters) {
	set := Set(t, nil, `{"algorithm": "fixed_window", "limit": 3, "period": "1m"}`, `{"algorithm": "token_bucket", "limit": 1, "period": "1m"}`)
	key := Key(t, "k")
	trace := Trace(8, 20, 1, Burst)
	replay(t, st, key, set, nil, trace)
	if err := st.Reset(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	replay(t, st, key, set, nil, trace[len(trace)-1:]) // a new key's answer
}

func testKeysIndependent(t *testing.T, st store.Counters) {
	set := Set(t, nil, `{"algorithm": "sliding_window", "limit": 4, "period": "1s"}`)
	a, b := Key(t, "a"), Key(t, "b")
	refA, refB := set.NewStates(), set.NewStates()
	for i, r := range Trace(9, 100, 2, Burst) {
		if i%3 == 0 {
			refB = replay(t, st, b, set, refB, []Request{r})
		} else {
			refA = replay(t, st, a, set, refA, []Request{r})
		}
	}
}

func testBadInput(t *testing.T, st store.Counters) {
	ctx := context.Background()
	set := Set(t, nil, `{"algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 2}`)
	key := Key(t, "k")
	trace := Trace(4, 10, 1, Burst)
	ref := replay(t, st, key, set, nil, trace[:5])
	at := trace[5].At
	for _, bad := range []struct {
		name string
		key  string
		at   int64
		cost int64
		is   error
	}{
		{"cost 0", key, at, 0, limiter.ErrCostExceedsCapacity},
		{"cost above burst", key, at, 3, limiter.ErrCostExceedsCapacity},
		{"empty key", "", at, 1, store.ErrKey},
		{"long key", strings.Repeat("k", store.MaxKeyLen+1), at, 1, store.ErrKey},
		{"negative time", key, -1, 1, limiter.ErrTimeOutOfRange},
		{"empty key and cost 0", "", at, 0, store.ErrKey}, // the key is checked first
		{"negative time and cost 0", key, -1, 0, limiter.ErrTimeOutOfRange},
	} {
		if _, err := store.DecideOne(ctx, st, bad.key, set, bad.at, bad.cost); !errors.Is(err, bad.is) {
			t.Errorf("%s: error %v, want %v", bad.name, err, bad.is)
		}
	}
	replay(t, st, key, set, ref, trace[5:]) // nothing changed
}

// testBadInputOtherSet: a refused decision with another rule set (a cost it cannot
// admit) neither moves a key to that set, forgetting its count, nor makes a new key.
func testBadInputOtherSet(t *testing.T, st store.Counters) {
	ctx := context.Background()
	hourly := Set(t, nil, `{"algorithm": "fixed_window", "limit": 1, "period": "1h"}`)
	other := Set(t, nil, `{"algorithm": "fixed_window", "limit": 2, "period": "2h"}`)
	key, fresh := Key(t, "k"), Key(t, "fresh")
	at := Trace(1, 1, 1, Burst)[0].At
	if d, err := store.DecideOne(ctx, st, key, hourly, at, 1); err != nil || !d.Allowed {
		t.Fatalf("the hour's first request: %+v, %v", d, err)
	}
	for _, k := range []string{key, fresh} {
		if _, err := store.DecideOne(ctx, st, k, other, at+1, 99); !errors.Is(err, limiter.ErrCostExceedsCapacity) {
			t.Fatalf("cost 99 against a limit of 2: error %v, want %v", err, limiter.ErrCostExceedsCapacity)
		}
	}
	if d, err := store.DecideOne(ctx, st, key, hourly, at+2, 1); err != nil || d.Allowed {
		t.Errorf("the hour's second request, limit 1, after a refused one: allowed %v, error %v; want denied", d.Allowed, err)
	}
	if d, err := st.Peek(ctx, fresh, other, at+2, nil); err != nil || d.Remaining != 2 {
		t.Errorf("a new key after a refused request: %+v, %v; want 2 remaining", d, err)
	}
}

func testRuleEdit(t *testing.T, st store.Counters) {
	ctx := context.Background()
	key := Key(t, "k")
	at := Trace(2, 1, 1, Burst)[0].At
	before := Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 3, "period": "1h"}`)
	for range 3 {
		store.DecideOne(ctx, st, key, before, at, 1)
	}
	// Raising the window's limit keeps its count; an added rule starts afresh.
	after := Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 4, "period": "1h"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 5, "period": "1h"}`)
	if d, err := store.DecideOne(ctx, st, key, after, at, 1); err != nil || !d.Allowed || d.Remaining != 0 {
		t.Fatalf("after raising the window to 4 with 3 used: %+v, %v; want allowed with 0 remaining", d, err)
	}
	// A rule whose algorithm changed starts afresh.
	changed := Set(t, nil, `{"name": "w", "algorithm": "sliding_log", "limit": 4, "period": "1h"}`)
	if d, err := store.DecideOne(ctx, st, key, changed, at, 1); err != nil || !d.Allowed || d.Remaining != 3 {
		t.Fatalf("after changing the algorithm: %+v, %v; want a fresh log (3 remaining)", d, err)
	}
}

func testExtremes(t *testing.T, st store.Counters, opts CountersOptions) {
	monthly := []string{
		`{"algorithm": "fixed_window", "limit": 1000000, "period": "744h"}`,
		`{"algorithm": "sliding_window", "limit": 1000000, "period": "744h"}`,
		`{"algorithm": "token_bucket", "limit": 1000000, "period": "744h", "burst": 1000000}`,
		`{"algorithm": "leaky_bucket", "limit": 1000000, "period": "744h", "burst": 1000000}`,
		`{"algorithm": "token_bucket", "limit": 1, "period": "744h", "burst": 117}`,
		`{"algorithm": "token_bucket", "limit": 999983, "period": "744h", "burst": 1000000}`,
		`{"algorithm": "sliding_window", "limit": 999983, "period": "743h59m59.999999s"}`,
		`{"algorithm": "fixed_window", "limit": 1, "period": "100ms"}`,
		`{"algorithm": "sliding_window", "limit": 1, "period": "100ms"}`,
		`{"algorithm": "token_bucket", "limit": 1, "period": "100ms"}`,
		`{"algorithm": "sliding_log", "limit": 1, "period": "100ms"}`,
	}
	if opts.MaxLogLimit == 0 || opts.MaxLogLimit >= 1000000 {
		monthly = append(monthly, `{"algorithm": "sliding_log", "limit": 1000000, "period": "744h"}`)
	}
	for i, js := range monthly {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			set := Set(t, nil, js)
			capacity := set.Rule(0).Capacity()
			trace := Trace(uint64(i), 60, capacity, Burst)
			// Late in the allowed time range, with heavy costs and long gaps.
			for j := range trace {
				trace[j].At += limiter.Micros(time.Date(2199, 1, 1, 0, 0, 0, 0, time.UTC)) - trace[0].At
				if j%7 == 3 {
					trace[j].Cost = capacity
				}
			}
			replay(t, st, Key(t, "k"), set, nil, trace)
		})
	}
}

// testConcurrent sends 64 goroutines' requests for one key at one frozen instant:
// exactly the capacity is admitted, for every algorithm.
func testConcurrent(t *testing.T, st store.Counters) {
	const workers, each = 64, 4
	at := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	for _, js := range []string{
		`{"algorithm": "fixed_window", "limit": 100, "period": "1m"}`,
		`{"algorithm": "fixed_window", "limit": 100, "period": "1m", "anchor": "first_request"}`,
		`{"algorithm": "sliding_log", "limit": 100, "period": "1m"}`,
		`{"algorithm": "sliding_window", "limit": 100, "period": "1m"}`,
		`{"algorithm": "token_bucket", "limit": 100, "period": "1m"}`,
		`{"algorithm": "leaky_bucket", "limit": 1, "period": "1m", "burst": 100}`,
	} {
		set := Set(t, nil, js)
		key := Key(t, set.Rule(0).Name)
		var admitted atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range each {
					d, err := store.DecideOne(context.Background(), st, key, set, at, 1)
					if err != nil {
						t.Errorf("%s: %v", js, err)
						return
					}
					if d.Allowed {
						admitted.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := admitted.Load(); n != 100 {
			t.Errorf("%s: %d goroutines x %d requests at one instant admitted %d, want exactly 100", js, workers, each, n)
		}
	}
}
