package dynamodb

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// BenchmarkDecide: Counters.Decide against DynamoDB Local over loopback, a token bucket,
// each caller on its own key (so every decision is one write).
func BenchmarkDecide(b *testing.B) {
	st, _, _ := newTestStore(b)
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				_, err := store.DecideOne(ctx, st, key, set, at+int64(i)*100, 1)
				return err
			})
		})
	}
}
