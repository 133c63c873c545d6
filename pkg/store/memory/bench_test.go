package memory

import (
	"context"
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
