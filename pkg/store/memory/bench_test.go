package memory

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// BenchmarkXTimeRateAllowN is the peer: one x/time/rate limiter, same rate and burst.
func BenchmarkXTimeRateAllowN(b *testing.B) {
	lim := rate.NewLimiter(rate.Limit(1000), 100)
	now := time.UnixMicro(at)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		lim.AllowN(now.Add(time.Duration(i)*time.Microsecond), 1)
	}
}

// BenchmarkXTimeRateOneKey is the like-with-like peer of BenchmarkDecideOneKey: one
// key's x/time/rate limiter found in a map behind a mutex, as a per-key limiter keeps
// them, then AllowN.
func BenchmarkXTimeRateOneKey(b *testing.B) {
	var mu sync.Mutex
	lims := map[string]*rate.Limiter{"key": rate.NewLimiter(rate.Limit(1000), 100)}
	now := time.UnixMicro(at)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		mu.Lock()
		lims["key"].AllowN(now.Add(time.Duration(i)*time.Microsecond), 1)
		mu.Unlock()
	}
}

// BenchmarkDecideOneKey: one key, one token bucket rule, time advancing 1us per call.
func BenchmarkDecideOneKey(b *testing.B) {
	s := NewCounters(CountersConfig{})
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		store.DecideOne(ctx, s, "key", set, at+int64(i), 1)
	}
}

// BenchmarkDecideManyKeys: 1e5 keys already present, visited round-robin.
func BenchmarkDecideManyKeys(b *testing.B) {
	const n = 100_000
	s := NewCounters(CountersConfig{})
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	ctx := context.Background()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "tenant-" + strconv.Itoa(i)
		store.DecideOne(ctx, s, keys[i], set, at, 1)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		store.DecideOne(ctx, s, keys[i%n], set, at+int64(i), 1)
	}
}

// BenchmarkXTimeRateManyKeys is the peer for many keys: 1e5 x/time/rate limiters in a
// map behind a mutex, the usual way to limit per key with that package.
func BenchmarkXTimeRateManyKeys(b *testing.B) {
	const n = 100_000
	var mu sync.Mutex
	lims := make(map[string]*rate.Limiter, n)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "tenant-" + strconv.Itoa(i)
		lims[keys[i]] = rate.NewLimiter(rate.Limit(1000), 100)
	}
	now := time.UnixMicro(at)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		mu.Lock()
		lims[keys[i%n]].AllowN(now.Add(time.Duration(i)*time.Microsecond), 1)
		mu.Unlock()
	}
}

// BenchmarkDecideParallel: GOMAXPROCS goroutines on distinct keys.
func BenchmarkDecideParallel(b *testing.B) {
	s := NewCounters(CountersConfig{})
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		key := strconv.FormatInt(time.Now().UnixNano(), 36)
		i := int64(0)
		for pb.Next() {
			i++
			store.DecideOne(ctx, s, key, set, at+i, 1)
		}
	})
}

// BenchmarkDecideOneKeyPaired is BenchmarkDecideOneKey and its two peers
// (BenchmarkXTimeRateAllowN's limiter, BenchmarkXTimeRateOneKey's map of limiters) taking
// turns of 1,000 decisions, so that the machine's load falls on the three alike: each
// iteration is one decision of the side whose turn it is. It reports the medians of
// the turns' time per decision (microseconds) and ours over each peer's.
//
// The store is called as the gate calls it, through the store.Counters interface
// (store.DecideOne, which takes the store's OneDecider path). Beyond AllowN's work it
// checks the request once (store.CheckRequest), hashes the key once (the hash picks
// the shard and keys the shard's table), finds the key's entry, takes the shard's
// lock, decides with limiter.Set.DecideChecked into the Decision it returns, and
// returns that Decision by value through the interface.
func BenchmarkDecideOneKeyPaired(b *testing.B) {
	const turn = 1000
	s := NewCounters(CountersConfig{})
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	ctx := context.Background()
	lim := rate.NewLimiter(rate.Limit(1000), 100)
	var mu sync.Mutex
	lims := map[string]*rate.Limiter{"key": rate.NewLimiter(rate.Limit(1000), 100)}
	t0 := time.UnixMicro(at)
	sides := []func(i int64){
		func(i int64) { store.DecideOne(ctx, s, "key", set, at+i, 1) },
		func(i int64) { lim.AllowN(t0.Add(time.Duration(i)*time.Microsecond), 1) },
		func(i int64) {
			mu.Lock()
			lims["key"].AllowN(t0.Add(time.Duration(i)*time.Microsecond), 1)
			mu.Unlock()
		},
	}
	perTurn := make([][]float64, len(sides))
	start := time.Now()
	b.ReportAllocs()
	for i := int64(0); b.Loop(); i++ {
		side := int(i/turn) % len(sides)
		if i > 0 && i%turn == 0 {
			prev := (side + len(sides) - 1) % len(sides)
			perTurn[prev] = append(perTurn[prev], float64(time.Since(start).Nanoseconds())/turn)
			start = time.Now()
		}
		sides[side](i/turn/int64(len(sides))*turn + i%turn) // each side's own clock
	}
	med := make([]float64, len(sides))
	for j, v := range perTurn {
		if len(v) == 0 {
			b.Skip("fewer than one turn per side: run with -benchtime 3000x or more")
		}
		slices.Sort(v)
		med[j] = v[len(v)/2] / 1e3
	}
	b.ReportMetric(med[0], "edgelimit-us")
	b.ReportMetric(med[1], "allown-us")
	b.ReportMetric(med[2], "map-us")
	b.ReportMetric(med[0]/med[1], "allown-ratio")
	b.ReportMetric(med[0]/med[2], "map-ratio")
}
