package hotcounter_test

import (
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// TestSaturatedCounterStaysHot: a counter that turned hot and reserves goes on being
// served through reservations when the decisions reaching it fall below the threshold,
// as they do when the gate's denial cache answers its denied requests until their
// retry instant (a regression test: it went cold after a second, and each of those
// decisions was a cold write, within the request's budget, to the item that DynamoDB
// throttled; through three keys of one tenant, 5 to 21 of them got the fail mode).
func TestSaturatedCounterStaysHot(t *testing.T) {
	s, _ := newMemory()
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 100}`)
	at := t0
	for range 600 { // 300 a second for 2 s: hot, and saturated
		decide(t, s, []store.Counter{c}, at, 1)
		at += 3_333
	}
	before := s.Stats()
	if before.Reservations == 0 || before.Denied == 0 {
		t.Fatalf("%+v: want the counter hot and saturated", before)
	}
	for range 60 { // 20 a second for 3 s: what the denial cache lets through
		decide(t, s, []store.Counter{c}, at, 1)
		at += 50_000
	}
	st := s.Stats()
	if cold, coldBefore := st.Calls-st.Reservations, before.Calls-before.Reservations; cold != coldBefore {
		t.Fatalf("%d cold decisions after the counter was saturated (%+v): want none", cold-coldBefore, st)
	}
}
