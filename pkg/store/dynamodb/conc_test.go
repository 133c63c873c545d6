package dynamodb

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestConcurrencyTraces: concurrency rules, alone and beside other rules, decided on
// DynamoDB Local as the limiter decides them, over traces whose gaps let slots expire
// (leases of 1 s and 2 s) and with steps back in time (clock skew); the item never
// holds more than the 17 entries a rule holds live.
func TestConcurrencyTraces(t *testing.T) {
	st, client, table := newTestStore(t)
	for i, rules := range [][]string{
		{`{"algorithm": "concurrency", "limit": 3, "lease": "1s"}`},
		{`{"name": "inflight", "algorithm": "concurrency", "limit": 5, "lease": "2s"}`,
			`{"name": "rate", "algorithm": "sliding_window", "limit": 8, "period": "1s"}`},
		{`{"name": "inflight", "algorithm": "concurrency", "limit": 4, "lease": "1s"}`,
			`{"name": "log", "algorithm": "sliding_log", "limit": 9, "period": "1s"}`,
			`{"name": "tokens", "algorithm": "token_bucket", "limit": 6, "period": "1s"}`},
	} {
		set, key := storetest.Set(t, nil, rules...), storetest.Key(t, string(rune('a'+i)))
		ref := set.NewStates()
		for n, r := range storetest.Trace(uint64(60+i), 200, 2, storetest.Burst) {
			want, err := set.Decide(ref, r.At, r.Cost)
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.DecideOne(context.Background(), st, key, set, r.At, r.Cost)
			if err != nil || got != want {
				t.Fatalf("set %d, request %d (at %d, cost %d): store %+v (%v), limiter %+v", i, n, r.At, r.Cost, got, err, want)
			}
		}
		out, err := client.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: st.key(key)})
		names, _ := prefixes(set)
		if m, ok := out.Item[names[0]+fLog].(*types.AttributeValueMemberM); err != nil || !ok || len(m.Value) > limiter.LeaseQuanta+1 {
			t.Errorf("set %d: the item holds %v (%v), want at most %d entries", i, out.Item[names[0]+fLog], err, limiter.LeaseQuanta+1)
		}
	}
}
