package dynamodb

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// settleOnceRules: a window, a concurrency rule and a bucket, over a tenant's counter
// and one of its API keys.
var settleOnceRules = [][]string{
	{`{"name": "window", "algorithm": "fixed_window", "limit": 40, "period": "1m"}`,
		`{"name": "inflight", "algorithm": "concurrency", "limit": 6, "lease": "60s"}`},
	{`{"name": "tokens", "algorithm": "token_bucket", "limit": 30, "period": "1m", "burst": 30}`},
}

// TestConcurrentSettlesApplyOnce: 4 instances (each with its own guesses) x 4
// goroutines settle one reservation at once, on the real clock: exactly one call
// applies it, every other answers false (or ErrContention, having changed nothing),
// and the counters hold one refund and one released slot.
func TestConcurrentSettlesApplyOnce(t *testing.T) {
	st, client, table := newTestStore(t)
	cs := make([]store.Counter, len(settleOnceRules))
	for i, rules := range settleOnceRules {
		cs[i] = store.Counter{Key: storetest.Key(t, string(rune('a'+i))), Set: storetest.Set(t, nil, rules...)}
	}
	outs := make([]limiter.Decision, len(cs))
	var at int64
	for range 2 { // two reservations of 10: 20 counted, 2 slots held
		at = time.Now().UnixMicro()
		if err := st.Decide(t.Context(), cs, at, 10, outs); err != nil || !outs[0].Allowed {
			t.Fatalf("reserve: %+v %v", outs, err)
		}
	}
	settle := store.Settlement{ID: "r1", At: at, Now: time.Now().UnixMicro(), Expires: at + 60_000_000, Delta: -4}
	var applied, contention atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		inst := NewCounters(client, table, CountersConfig{})
		for range 4 {
			wg.Go(func() {
				ok, err := inst.Settle(context.Background(), cs, settle)
				switch {
				case ok:
					applied.Add(1)
				case errors.Is(err, ErrContention):
					contention.Add(1)
				case err != nil:
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	if applied.Load() != 1 {
		t.Fatalf("%d of 16 concurrent settles of one id applied (%d ErrContention), want 1", applied.Load(), contention.Load())
	}
	t.Logf("16 concurrent settles of one id: 1 applied, %d ErrContention", contention.Load())
	var rules [limiter.MaxRules]limiter.Outcome
	now := time.Now().UnixMicro()
	if _, err := st.Peek(t.Context(), cs[0].Key, cs[0].Set, now, rules[:]); err != nil || rules[0].Remaining != 24 || rules[1].Remaining != 5 {
		t.Errorf("after the settle: window %d remaining (want 24: 40-20+4), slots %d free (want 5) (%v)", rules[0].Remaining, rules[1].Remaining, err)
	}
	if d, err := st.Peek(t.Context(), cs[1].Key, cs[1].Set, now, nil); err != nil || d.Remaining < 14 || d.Remaining > 15 {
		t.Errorf("after the settle: %d tokens (want 14 refilled to at most 15 within a second) (%v)", d.Remaining, err)
	}
}

// TestSettleRetriedOnce: a settle transaction whose reply is lost after it committed
// is retried by the SDK under one ClientRequestToken, so it applies once.
func TestSettleRetriedOnce(t *testing.T) {
	f := &lostReply{applied: map[string]bool{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	set := storetest.Set(t, nil, settleOnceRules[0]...)
	st := NewCounters(newClient(srv.URL), "counters", CountersConfig{})
	settle := store.Settlement{ID: "r1", At: 1_800_000_000_000_000, Now: 1_800_000_000_000_001, Expires: 1_800_000_060_000_000, Delta: 1}
	applied, err := st.Settle(context.Background(), []store.Counter{{Key: "tenant", Set: set}}, settle)
	f.check(t, "Settle", err)
	if !applied {
		t.Error("the settle after the retry: not applied")
	}
}

// TestSettleAtExpirySendsNothing: a settlement at or after the reservation's expiry
// answers false without a request (the Counters here has no client), and one whose
// counter key is its own marker's is an input error.
func TestSettleAtExpirySendsNothing(t *testing.T) {
	st := NewCounters(nil, "counters", CountersConfig{})
	c := []store.Counter{{Key: "k", Set: storetest.Set(t, nil, settleOnceRules[0]...)}}
	late := store.Settlement{ID: "r1", At: 1_800_000_000_000_000, Now: 1_800_000_060_000_000, Expires: 1_800_000_060_000_000}
	if applied, err := st.Settle(t.Context(), c, late); applied || err != nil {
		t.Errorf("at expiry: applied %v, %v; want false, nil", applied, err)
	}
	c[0].Key = markerPrefix + "r1"
	late.Now--
	if applied, err := st.Settle(t.Context(), c, late); applied || !errors.Is(err, store.ErrSettlement) {
		t.Errorf("a counter named as the marker: applied %v, %v; want ErrSettlement", applied, err)
	}
}

// TestSettleFromAnotherInstance: a reservation made by one instance and settled by
// another, which has never seen the key (its first write is a probe), releases the
// slot and refunds the log; the first instance, whose guess predates the settle, then
// decides and peeks as the limiter does on the settled state (a regression test: the
// removal of an expired log entry was conditioned on its existence, not its cost, and
// took the unrefunded cost off n).
func TestSettleFromAnotherInstance(t *testing.T) {
	a, client, table := newTestStore(t)
	b := NewCounters(client, table, CountersConfig{})
	set := storetest.Set(t, nil, `{"name": "inflight", "algorithm": "concurrency", "limit": 3, "lease": "60s"}`,
		`{"name": "log", "algorithm": "sliding_log", "limit": 10, "period": "1s"}`)
	c := []store.Counter{{Key: storetest.Key(t, "k"), Set: set}}
	ref := set.NewStates()
	at := storetest.Trace(3, 1, 1, storetest.Burst)[0].At
	decide := func(st *Counters, now, cost int64) {
		t.Helper()
		want, _ := set.Decide(ref, now, cost)
		got, err := store.DecideOne(t.Context(), st, c[0].Key, set, now, cost)
		if err != nil || got != want {
			t.Fatalf("at +%d µs: %+v (%v), the limiter %+v", now-at, got, err, want)
		}
	}
	peek := func(now int64) {
		t.Helper()
		want, got := make([]limiter.Outcome, 2), make([]limiter.Outcome, 2)
		set.Peek(ref, now, want)
		if _, err := a.Peek(t.Context(), c[0].Key, set, now, got); err != nil || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("peek at +%d µs: %+v (%v), the limiter %+v", now-at, got, err, want)
		}
	}
	decide(a, at, 5)
	settle := store.Settlement{ID: "r1", At: at, Now: at + 1000, Expires: at + 60_000_000, Delta: -3}
	set.Settle(ref, settle.At, settle.Now, settle.Delta)
	if applied, err := b.Settle(t.Context(), c, settle); err != nil || !applied {
		t.Fatalf("settle by another instance: applied %v, %v", applied, err)
	}
	peek(at + 2000)
	decide(a, at+1_500_000, 4) // the reserved entry has expired from the log
	peek(at + 1_600_000)
}

// TestSettleCancellationReasons: every way DynamoDB can refuse a settle transaction
// becomes "settled before", a retry or a typed error, never a panic, within the
// attempts (against a fake API; the transaction is the marker and two counters).
func TestSettleCancellationReasons(t *testing.T) {
	window := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	p := rulePrefix(window.Rule(0).StateID())
	bad := map[string]types.AttributeValue{p + fCount: &types.AttributeValueMemberS{Value: "two"}}
	ccf, conflict, none := reason{code: conditionFailed}, reason{code: "TransactionConflict"}, reason{code: "None"}
	for _, tc := range []struct {
		name    string
		replies []error
		want    error // nil: no error
		applied bool
		calls   int
	}{
		{"settled before", []error{canceled(ccf, none, none)}, nil, false, 1},
		{"settled before, and a counter changed", []error{canceled(ccf, ccf, none)}, nil, false, 1},
		{"conflict every time", []error{canceled(none, conflict, none)}, ErrContention, false, maxSettleAttempts},
		{"conflict once", []error{canceled(none, none, conflict), nil}, nil, true, 2},
		{"a counter changed", []error{canceled(none, ccf, none), nil}, nil, true, 2},
		{"throttled item", []error{canceled(none, reason{code: "ThrottlingError"}, none)}, ErrThrottled, false, 1},
		{"malformed item", []error{canceled(none, reason{conditionFailed, bad}, none)}, ErrMalformedItem, false, 1},
		{"validation error", []error{canceled(none, none, reason{code: "ValidationError"})}, errAny, false, 1},
		{"too few reasons", []error{canceled(none)}, errAny, false, 1},
		{"request throttled", []error{&types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}}, ErrThrottled, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{replies: tc.replies}
			cs := []store.Counter{{Key: "a", Set: window}, {Key: "b", Set: window}}
			settle := store.Settlement{ID: "r1", At: 1_800_000_000_000_000, Now: 1_800_000_000_000_001, Expires: 1_800_000_060_000_000, Delta: 2}
			applied, err := NewCounters(api, "t", CountersConfig{}).Settle(context.Background(), cs, settle)
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.want != nil && (err == nil || tc.want != errAny && !errors.Is(err, tc.want)):
				t.Fatalf("error %v, want %v", err, tc.want)
			case applied != tc.applied || api.calls != tc.calls:
				t.Fatalf("applied %v after %d requests, want %v after %d", applied, api.calls, tc.applied, tc.calls)
			}
		})
	}
}
