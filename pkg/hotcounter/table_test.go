package hotcounter

import (
	"fmt"
	"testing"
)

// TestTableBounded: a table of 640 entries (10 a shard) fed 10,000 keys holds at most
// its bound; idle counters go first, and a counter holding a lease stays while idle
// ones can make room.
func TestTableBounded(t *testing.T) {
	tb := newTable(640)
	var st stats
	const now = 1_800_000_000_000_000
	leased := tb.get("leased", now, &st)
	leased.lease = lease{units: 7, expires: now + 60_000_000}
	leased.meter.seen = now
	for i := range 10_000 {
		e := tb.get(fmt.Sprint("k", i), now+10_000_000, &st) // seen long after: each idle at once
		e.meter.seen = now
	}
	total := 0
	for i := range tb.shards {
		if n := len(tb.shards[i].m); n > tb.max {
			t.Fatalf("shard %d holds %d, above its bound of %d", i, n, tb.max)
		}
		total += len(tb.shards[i].m)
	}
	if tb.get("leased", now, &st) != leased || st.lost.Load() != 0 {
		t.Fatalf("the leased counter was dropped (%d units lost) while idle ones could go", st.lost.Load())
	}
	t.Logf("%d entries held", total)
}
