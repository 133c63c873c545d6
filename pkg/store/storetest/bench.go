package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchCallers splits b.N calls of decide among callers goroutines, each with a key of
// its own and its own call counter i, and reports beside ns/op the decisions per
// second and the median and 99th percentile of one call's latency (p50-us, p99-us).
func BenchCallers(b *testing.B, callers int, decide func(ctx context.Context, key string, i int) error) {
	ctx := context.Background()
	latencies, keys := make([][]time.Duration, callers), make([]string, callers)
	for c := range callers {
		n := b.N / callers
		if c < b.N%callers {
			n++
		}
		latencies[c], keys[c] = make([]time.Duration, 0, n), Key(b, fmt.Sprint("caller", c))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range cap(latencies[c]) {
				start := time.Now()
				if err := decide(ctx, keys[c], i); err != nil {
					b.Error(err)
					return
				}
				latencies[c] = append(latencies[c], time.Since(start))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	all := slices.Concat(latencies...)
	if len(all) > 0 {
		slices.Sort(all)
		b.ReportMetric(float64(all[len(all)/2].Nanoseconds())/1e3, "p50-us")
		b.ReportMetric(float64(all[len(all)*99/100].Nanoseconds())/1e3, "p99-us")
	}
}
