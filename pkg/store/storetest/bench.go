package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchCallers splits b.N calls of decide among callers goroutines, each with a key of
// its own and its own call counter i, and reports decisions per second beside ns/op.
func BenchCallers(b *testing.B, callers int, decide func(ctx context.Context, key string, i int) error) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range callers {
		n := b.N / callers
		if c < b.N%callers {
			n++
		}
		key := Key(b, fmt.Sprint("caller", c))
		wg.Go(func() {
			for i := range n {
				if err := decide(ctx, key, i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}
