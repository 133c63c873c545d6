package dynamodb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// localTransactUnits is what DynamoDB Local reports for a committed TransactWriteItems
// of 2 to 6 items under 1 KB, whatever their number (DynamoDB bills 2 per item).
const localTransactUnits = 4

// TestMixedPaths: a trace over three counters in which each request decides one, two
// or all three of them, so that UpdateItems and TransactWriteItems write the same
// items, replayed against limiter.DecideAll decision for decision.
func TestMixedPaths(t *testing.T) {
	st, _, _ := newTestStore(t)
	rules := [][]string{
		{`{"name": "route", "algorithm": "fixed_window", "limit": 12, "period": "1s"}`,
			`{"name": "log", "algorithm": "sliding_log", "limit": 6, "period": "1s"}`},
		{`{"name": "tenant", "algorithm": "sliding_window", "limit": 15, "period": "2s"}`,
			`{"name": "burst", "algorithm": "token_bucket", "limit": 8, "period": "1s", "burst": 5}`},
		{`{"name": "queue", "algorithm": "leaky_bucket", "limit": 6, "period": "1s", "burst": 4}`,
			`{"name": "anchored", "algorithm": "fixed_window", "limit": 7, "period": "700ms", "anchor": "first_request"}`},
	}
	all := make([]store.Counter, len(rules))
	ref := make([][]limiter.State, len(rules))
	for i, rs := range rules {
		all[i] = store.Counter{Key: storetest.Key(t, fmt.Sprint("c", i)), Set: storetest.Set(t, nil, rs...)}
		ref[i] = all[i].Set.NewStates()
	}
	rng := rand.New(rand.NewPCG(7, 1))
	var decided [2][2]int // [several counters][allowed]
	for n, r := range storetest.Trace(31, 300, 3, storetest.Burst) {
		var cs []store.Counter
		var sets []*limiter.Set
		var states [][]limiter.State
		for i, mask := 0, 1+rng.IntN(7); i < len(all); i++ {
			if mask&(1<<i) != 0 {
				cs, sets, states = append(cs, all[i]), append(sets, all[i].Set), append(states, ref[i])
			}
		}
		want, got := make([]limiter.Decision, len(cs)), make([]limiter.Decision, len(cs))
		allowed, err := limiter.DecideAll(sets, states, r.At, r.Cost, want)
		if err != nil {
			t.Fatalf("reference, request %d: %v", n, err)
		}
		if err := st.Decide(context.Background(), cs, r.At, r.Cost, got); err != nil {
			t.Fatalf("request %d over %d counters: %v", n, len(cs), err)
		}
		for i := range cs {
			if got[i] != want[i] {
				t.Fatalf("request %d (at %d, cost %d) over %d counters, counter %d: store decided\n  %+v\nthe limiter decides\n  %+v", n, r.At, r.Cost, len(cs), i, got[i], want[i])
			}
		}
		several, admitted := min(len(cs)-1, 1), 0
		if allowed {
			admitted = 1
		}
		decided[several][admitted]++
	}
	t.Logf("one counter: %d allowed, %d denied; several: %d allowed, %d denied", decided[0][1], decided[0][0], decided[1][1], decided[1][0])
	if decided[1][0] == 0 || decided[1][1] == 0 || decided[0][0]+decided[0][1] == 0 {
		t.Fatalf("the trace decided %v: want denials and admissions over several counters, and single ones", decided)
	}
}

// TestRoundTripsCounters: a steady trace from one instance over the counters of a
// route rule, a tenant-scope rule and a key-scope rule takes exactly one request per
// decision, allowed or denied, and DynamoDB Local reports the write units the docs say.
func TestRoundTripsCounters(t *testing.T) {
	ct := &testenv.CountingTransport{}
	_, client, table := newTestStore(t, counting(ct))
	rules := []string{
		`{"name": "route", "algorithm": "sliding_window", "limit": 6, "period": "1s"}`,
		`{"name": "tenant", "algorithm": "fixed_window", "limit": 8, "period": "1s"}`,
		`{"name": "key", "algorithm": "token_bucket", "limit": 4, "period": "1s", "burst": 5}`,
	}
	ctx := context.Background()
	for n := 1; n <= len(rules); n++ {
		t.Run(fmt.Sprint(n, " counters"), func(t *testing.T) {
			st := NewCounters(client, table, CountersConfig{})
			cs := make([]store.Counter, n)
			for i := range cs {
				cs[i] = store.Counter{Key: storetest.Key(t, fmt.Sprint("c", i)), Set: storetest.Set(t, nil, rules[i])}
			}
			outs := make([]limiter.Decision, n)
			trace := storetest.Trace(5, 200, 1, storetest.Burst)
			most, denied := int64(0), 0
			ct.Reset()
			for _, r := range trace {
				before := ct.Count()
				if err := st.Decide(ctx, cs, r.At, 1, outs); err != nil {
					t.Fatal(err)
				}
				most = max(most, ct.Count()-before)
				if d, _ := limiter.Join(outs); !d.Allowed {
					denied++
				}
			}
			total := ct.Reset()
			stats := st.Stats()
			perDecision := stats.WriteUnits / float64(stats.Committed)
			sizes := make([]int, n)
			for i, c := range cs {
				out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: st.key(c.Key)})
				if err != nil {
					t.Fatal(err)
				}
				sizes[i] = itemSize(out.Item)
			}
			t.Logf("%d counters: %d decisions (%d denied), %d requests, most %d per decision; DynamoDB Local reported %.1f write units per allowed decision; items of %v bytes (DynamoDB bills %d)",
				n, len(trace), denied, total, most, perDecision, sizes, billed(sizes))
			if total != int64(len(trace)) || most != 1 || denied == 0 || denied == len(trace) {
				t.Fatalf("%d requests for %d decisions, most %d, %d denied: want exactly one request per decision, and denials among admissions", total, len(trace), most, denied)
			}
			reported, bills := float64(localTransactUnits), 2*n
			if n == 1 {
				reported, bills = 1, 1
			}
			if perDecision != reported || stats.ReadUnits != 0 {
				t.Fatalf("%.2f write units and %.1f read units per allowed decision, want %.0f and 0", perDecision, stats.ReadUnits, reported)
			}
			if billed(sizes) != bills {
				t.Fatalf("DynamoDB would bill %d write units for items of %v bytes, want %d", billed(sizes), sizes, bills)
			}
		})
	}
}

// billed is what DynamoDB bills for one decision writing items of these sizes: a
// write unit per KB, twice over in a transaction (one to prepare, one to commit).
func billed(sizes []int) int {
	units := 0
	for _, s := range sizes {
		units += (s + 1023) / 1024
	}
	if len(sizes) > 1 {
		units *= 2
	}
	return units
}

// TestOtherInstances: when another instance wrote a counter since this one last saw
// it, the transaction's conditions still decide exactly. A counter the other filled
// denies in one request (its cancellation reason carries the true item), consuming
// nothing from the counter that allows, whichever comes first; a counter the other
// only used is answered from the stale guess, Remaining too high by what the other
// admitted, as documented.
func TestOtherInstances(t *testing.T) {
	ct := &testenv.CountingTransport{}
	a, client, table := newTestStore(t, counting(ct))
	b := NewCounters(client, table, CountersConfig{})
	ctx := context.Background()
	at := storetest.Trace(9, 1, 1, storetest.Burst)[0].At
	wide := storetest.Set(t, nil, `{"name": "wide", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	narrow := storetest.Set(t, nil, `{"name": "narrow", "algorithm": "fixed_window", "limit": 2, "period": "1m"}`)
	decide := func(s *Counters, cs ...store.Counter) []limiter.Decision {
		t.Helper()
		outs := make([]limiter.Decision, len(cs))
		if err := s.Decide(ctx, cs, at, 1, outs); err != nil {
			t.Fatal(err)
		}
		return outs
	}
	for _, first := range []string{"wide", "narrow"} {
		t.Run("denial, "+first+" first", func(t *testing.T) {
			w, n := store.Counter{Key: storetest.Key(t, "w"), Set: wide}, store.Counter{Key: storetest.Key(t, "n"), Set: narrow}
			cs := []store.Counter{w, n}
			if first == "narrow" {
				cs = []store.Counter{n, w}
			}
			decide(a, cs...) // a has seen both: 1 used of each
			decide(b, n)     // b fills narrow behind a's back
			ct.Reset()
			if d, _ := limiter.Join(decide(a, cs...)); d.Allowed {
				t.Fatalf("a decided %+v with narrow full, want a denial", d)
			}
			if n := ct.Reset(); n != 1 {
				t.Fatalf("the denial took %d requests, want 1", n)
			}
			if d, err := a.Peek(ctx, w.Key, wide, at, nil); err != nil || d.Remaining != 9 {
				t.Fatalf("wide after one admission and one denial: %+v, %v; want 9 remaining", d, err)
			}
		})
	}
	t.Run("denial by a probe", func(t *testing.T) {
		// a knows narrow is full, so its write is a probe: every item comes back, and
		// the denial reports wide as it is, though b used it since a last saw it.
		w, n := store.Counter{Key: storetest.Key(t, "w"), Set: wide}, store.Counter{Key: storetest.Key(t, "n"), Set: narrow}
		for range 3 {
			decide(a, w, n)
		}
		decide(b, w)
		ct.Reset()
		outs := decide(a, w, n)
		if n := ct.Reset(); n != 1 || outs[1].Allowed {
			t.Fatalf("a decided %+v in %d requests, want narrow's denial in 1", outs, n)
		}
		// wide allows on its own: its Decision counts this request, as DecideAll's does.
		if truth, err := a.Peek(ctx, w.Key, wide, at, nil); err != nil || truth.Remaining != 10-3 || outs[0].Remaining != truth.Remaining-1 {
			t.Fatalf("the denial reports wide with %d remaining, the item holds %+v (%v): want 6, from the true 3 used", outs[0].Remaining, truth, err)
		}
	})
	t.Run("answer from a stale guess", func(t *testing.T) {
		w, n := store.Counter{Key: storetest.Key(t, "w"), Set: wide}, store.Counter{Key: storetest.Key(t, "n"), Set: wide}
		decide(a, w, n)
		const others = 3
		for range others {
			decide(b, w)
		}
		ct.Reset()
		outs := decide(a, w, n)
		if n := ct.Reset(); n != 1 || !outs[0].Allowed {
			t.Fatalf("a decided %+v in %d requests, want allowed in 1", outs, n)
		}
		truth, err := a.Peek(ctx, w.Key, wide, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		if truth.Remaining != 10-2-others || outs[0].Remaining-truth.Remaining != others {
			t.Fatalf("a answered %d remaining, the item holds %d: want it too high by exactly the %d the other admitted", outs[0].Remaining, truth.Remaining, others)
		}
	})
}
