package dynamodb

import (
	"context"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// BenchmarkDecide: Counters.Decide against DynamoDB Local over loopback, a token bucket,
// each caller on its own key (so every decision is one write). It reports the HTTP
// requests and the write units per decision: what a decision costs on DynamoDB
// (docs/benchmarks.md prices them). The units are those DynamoDB Local reported for the
// committed writes, plus one for each failed conditional write (a denial): DynamoDB
// bills a failed condition as a write of the item (one unit under 1 KB) but reports no
// capacity for it.
func BenchmarkDecide(b *testing.B) {
	ct := &testenv.CountingTransport{}
	st, _, _ := newTestStore(b, counting(ct))
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			ct.Reset()
			before := st.Stats()
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				_, err := store.DecideOne(ctx, st, key, set, at+int64(i)*100, 1)
				return err
			})
			after := st.Stats()
			b.ReportMetric(float64(ct.Count())/float64(b.N), "requests/decision")
			failed := (after.Writes - before.Writes) - (after.Committed - before.Committed)
			b.ReportMetric((after.WriteUnits-before.WriteUnits+float64(failed))/float64(b.N), "write-units/decision")
		})
	}
}
