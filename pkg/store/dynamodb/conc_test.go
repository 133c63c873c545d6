package dynamodb

import (
	"context"
	"fmt"
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

// TestConcurrencySlotsAfterARetry: three instances (guesses of their own) take a slot
// each on one key, at t, t+200ms and t+100ms (clocks apart); the second and third
// find the item changed under their empty guess and retry, which leaves l at t, so
// the third's slot is filed under an expiry before the second's, after it in its
// guess. Their three settles free all three slots (a regression test: the third's
// settle freed the second's entry, whose own settle then found no slot to free, and
// one slot stayed held until its lease ended; TestConcurrencyNeverOverTheLimit on
// DynamoDB Local failed so in about 1 run of 25).
func TestConcurrencySlotsAfterARetry(t *testing.T) {
	a, client, table := newTestStore(t)
	b, c := NewCounters(client, table, CountersConfig{}), NewCounters(client, table, CountersConfig{})
	set := storetest.Set(t, nil, `{"name": "inflight", "algorithm": "concurrency", "limit": 3, "lease": "1s"}`)
	cs := []store.Counter{{Key: storetest.Key(t, "k"), Set: set}}
	t0 := int64(1_800_000_000_000_000) // a multiple of the lease's quantum, 62.5 ms
	takes := []struct {
		st *Counters
		at int64
	}{{a, t0}, {b, t0 + 200_000}, {c, t0 + 100_000}}
	for i, tk := range takes {
		if d, err := store.DecideOne(t.Context(), tk.st, cs[0].Key, set, tk.at, 1); err != nil || !d.Allowed {
			t.Fatalf("slot %d: %+v, %v; want allowed", i, d, err)
		}
	}
	now := t0 + 300_000
	for i, tk := range []int{2, 1, 0} {
		s := store.Settlement{ID: fmt.Sprintf("slot-%d", tk), At: takes[tk].at, Now: now, Expires: takes[tk].at + 2_000_000}
		if applied, err := takes[tk].st.Settle(t.Context(), cs, s); err != nil || !applied {
			t.Fatalf("settle %d (slot %d): applied %v, %v", i, tk, applied, err)
		}
	}
	if d, err := a.Peek(t.Context(), cs[0].Key, set, now, nil); err != nil || d.Remaining != 3 {
		t.Fatalf("after the 3 settles: %+v, %v; want the 3 slots free", d, err)
	}
}
