package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// settleRules are the counters of the reserve/settle traces: every algorithm, a
// concurrency rule among them, decided as one request.
var settleRules = [][]string{
	{`{"name": "fixed", "algorithm": "fixed_window", "limit": 40, "period": "1s"}`,
		`{"name": "sliding", "algorithm": "sliding_window", "limit": 60, "period": "2s"}`},
	{`{"name": "log", "algorithm": "sliding_log", "limit": 30, "period": "700ms"}`,
		`{"name": "tokens", "algorithm": "token_bucket", "limit": 25, "period": "1s", "burst": 30}`},
	{`{"name": "inflight", "algorithm": "concurrency", "limit": 6, "lease": "1s"}`,
		`{"name": "queue", "algorithm": "leaky_bucket", "limit": 20, "period": "1s", "burst": 20}`},
}

// reservation is an allowed request of the trace, not yet known to be settled.
type reservation struct {
	id          string
	at, cost    int64
	expires     int64
	settledOnce bool
}

// RunSettle replays reserve/settle traces on st (which must implement store.Settler)
// against pkg/limiter: requests decided over three counters, and settlements of
// earlier allowed requests with actual costs from 0 to three times the reserved one,
// some settled twice, some after their expiry, some after their windows moved on. The
// store must answer every decision as the limiter does on states settled the same
// way, and report a settlement applied exactly when the reference applies it.
func RunSettle(t *testing.T, st store.Counters) {
	s := settler(t, st)
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { replaySettle(t, st, s, seed) })
	}
	t.Run("Input", func(t *testing.T) { testSettleInput(t, st, s) })
}

// settler returns st as a store.Settler, failing t when it is not one.
func settler(t *testing.T, st store.Counters) store.Settler {
	t.Helper()
	s, ok := st.(store.Settler)
	if !ok {
		t.Fatalf("%T does not implement store.Settler", st)
	}
	return s
}

func replaySettle(t *testing.T, st store.Counters, s store.Settler, seed uint64) {
	ctx := context.Background()
	cs := newCounters(t, "s", settleRules)
	ref := newStates(cs)
	prefix := randomID()
	rng := mrand.New(mrand.NewPCG(seed, 7))
	marks := map[string]bool{}
	var open []*reservation
	for i, r := range Trace(seed+40, 300, 8, Burst) {
		if decideBoth(t, st, cs, ref, i, r) {
			open = append(open, &reservation{id: fmt.Sprintf("%s-%d", prefix, i), at: r.At, cost: r.Cost, expires: r.At + 1_500_000})
		}
		for len(open) > 0 && rng.IntN(3) > 0 {
			j := rng.IntN(len(open))
			res := open[j]
			settle := store.Settlement{ID: res.id, At: res.at, Now: max(r.At, res.at), Expires: res.expires, Delta: rng.Int64N(3*res.cost+1) - res.cost}
			applies := !marks[res.id] && settle.Now < settle.Expires
			if applies {
				marks[res.id] = true
				settleStates(cs, ref, settle)
			}
			applied, err := s.Settle(ctx, cs, settle)
			if err != nil || applied != applies {
				t.Fatalf("request %d, settling %s (%+v): applied %v (%v), want %v", i, res.id, settle, applied, err, applies)
			}
			if res.settledOnce || rng.IntN(4) == 0 { // keep some to settle twice
				open = append(open[:j], open[j+1:]...)
			}
			res.settledOnce = true
		}
	}
}

// settleStates applies s to the reference states of cs.
func settleStates(cs []store.Counter, ref [][]limiter.State, s store.Settlement) {
	for k, c := range cs {
		c.Set.Settle(ref[k], s.At, s.Now, s.Delta)
	}
}

// testSettleInput: malformed settlements are input errors that change nothing.
func testSettleInput(t *testing.T, st store.Counters, s store.Settler) {
	ctx := context.Background()
	set := Set(t, nil, settleRules[0]...)
	c := store.Counter{Key: Key(t, "in"), Set: set}
	at := Trace(9, 1, 1, Burst)[0].At
	var out [1]limiter.Decision
	if err := st.Decide(ctx, []store.Counter{c}, at, 5, out[:]); err != nil || !out[0].Allowed {
		t.Fatalf("reserve: %+v %v", out[0], err)
	}
	good := store.Settlement{ID: randomID(), At: at, Now: at + 1, Expires: at + 1_000_000, Delta: -5}
	for name, bad := range map[string]func(*store.Settlement, *[]store.Counter){
		"empty id":     func(s *store.Settlement, _ *[]store.Counter) { s.ID = "" },
		"id charset":   func(s *store.Settlement, _ *[]store.Counter) { s.ID = "a b" },
		"long id":      func(s *store.Settlement, _ *[]store.Counter) { s.ID = string(make([]byte, 65)) },
		"now before":   func(s *store.Settlement, _ *[]store.Counter) { s.Now = s.At - 1 },
		"huge delta":   func(s *store.Settlement, _ *[]store.Counter) { s.Delta = -store.MaxDelta - 1 },
		"no counters":  func(_ *store.Settlement, cs *[]store.Counter) { *cs = nil },
		"twice a key":  func(_ *store.Settlement, cs *[]store.Counter) { *cs = append(*cs, c) },
		"bad key":      func(_ *store.Settlement, cs *[]store.Counter) { (*cs)[0].Key = "" },
		"expires soon": func(s *store.Settlement, _ *[]store.Counter) { s.Expires = s.At },
	} {
		settle, cs := good, []store.Counter{c}
		bad(&settle, &cs)
		if applied, err := s.Settle(ctx, cs, settle); err == nil || applied {
			t.Errorf("%s: applied %v, err %v; want an input error", name, applied, err)
		}
	}
	if d, err := st.Peek(ctx, c.Key, set, at+1, nil); err != nil || d.Remaining != 35 {
		t.Fatalf("after bad settlements: %+v %v, want 35 remaining (nothing refunded)", d, err)
	}
	late := good
	late.Now = late.Expires
	if applied, err := s.Settle(ctx, []store.Counter{c}, late); err != nil || applied {
		t.Fatalf("settling at expiry: applied %v, %v", applied, err)
	}
	if applied, err := s.Settle(ctx, []store.Counter{c}, good); err != nil || !applied {
		t.Fatalf("settling: applied %v, %v", applied, err)
	}
	if d, _ := st.Peek(ctx, c.Key, set, at+1, nil); d.Remaining != 40 {
		t.Fatalf("after a refund of the whole reservation: %d remaining, want 40", d.Remaining)
	}
}

func randomID() string {
	var b [9]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
