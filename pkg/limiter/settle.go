package limiter

import (
	"math"
	"math/bits"
)

// Settle applies one settlement to the states of one counter of s: a request reserved
// at instant at, settled at now for delta more (or, negative, less) than it reserved.
// States that hold no state for a rule change only as a request would change them.
//
// For every rule but concurrency:
//   - delta > 0 is charged at now whatever the rule's state: a window or a bucket may
//     go into debt, reported as Remaining 0, and later requests are denied until it is
//     paid back (a bucket's theoretical arrival time stops at MaxDebtTAT);
//   - delta < 0 is refunded, never more than the window holds, and only while the
//     window that held the reservation is still the current one: fixed_window and
//     sliding_window while the window containing at is current at now; sliding_log
//     from its first live entry at or after at; a bucket's theoretical arrival time
//     moves back by -delta emission intervals, never before now (a bucket cannot be
//     fuller than full).
//
// A concurrency rule releases the slot taken at at, whatever delta (concRelease).
// Settle checks nothing: states holds Len() states and at, now are within
// [0, MaxTime].
func (s *Set) Settle(states []State, at, now, delta int64) {
	for i := range s.rules {
		c := &s.rules[i]
		switch {
		case c.kind == kindConc:
			c.concRelease(&states[i], at, now)
		case delta > 0 && c.bucket():
			c.bucketCharge(&states[i], now, delta)
		case delta > 0:
			c.consume(&states[i], s.zone, now, delta)
		case delta < 0:
			c.refund(&states[i], s.zone, at, now, -delta)
		}
	}
}

// refund gives back up to n of what a request reserved at instant at.
func (c *compiled) refund(st *State, z *Zone, at, now, n int64) {
	switch c.kind {
	case kindFixed:
		start, end, count := c.fixedWindow(st, z, now)
		if count > 0 && st.WindowStart == start && at >= start && at < end {
			st.Count = count - min(n, count)
		}
	case kindSliding:
		_, ws, _, curr := c.slidingCounts(st, now)
		if curr > 0 && st.WindowStart == ws && at-at%c.period == ws {
			st.Count = curr - min(n, curr)
		}
	case kindLog:
		_, expired, _, _ := c.logLive(st, now)
		for i := expired; i < st.Log.n; i++ {
			if e := st.Log.At(i); e.At >= at && e.Cost > 0 {
				k := min(n, e.Cost)
				st.Log.add(i, -k)
				st.Count -= k
				return
			}
		}
	default:
		c.bucketRefund(st, now, n)
	}
}

// MaxDebtTAT is the latest theoretical arrival time a charge leaves a bucket at: past
// MaxTime by an empty bucket's longest refill, so a bucket charged beyond it denies
// every request up to MaxTime all the same. It keeps the arithmetic exact in int64
// and in a script's doubles (below 2^53).
const MaxDebtTAT = MaxTime + MaxFillMicros

// bucketCharge moves the theoretical arrival time forward by n emission intervals
// from the effective now, as a request of cost n would, but whatever the tolerance;
// at most to MaxDebtTAT.
func (c *compiled) bucketCharge(st *State, now, n int64) {
	at, tat, frac, _, _ := c.bucketStep(st, now, 0)
	whole, f, ok := c.times(n)
	if f += frac; f >= c.Limit {
		whole, f = whole+1, f-c.Limit
	}
	if !ok || whole >= MaxDebtTAT-tat {
		tat, f = MaxDebtTAT, 0
	} else {
		tat += whole
	}
	st.TAT, st.TATFrac, st.Last = tat, f, at
}

// bucketRefund moves the theoretical arrival time back by n emission intervals, to
// no earlier than the effective now: a full bucket stays full. n*T is formed in 128
// bits, as advance forms it.
func (c *compiled) bucketRefund(st *State, now, n int64) {
	at := max(now, st.Last)
	if st.TAT < at || st.TAT == at && st.TATFrac == 0 {
		return // full
	}
	whole, frac, ok := c.times(n)
	if !ok || whole >= st.TAT-at {
		st.TAT, st.TATFrac = at, 0
		return
	}
	us, f := st.TAT-whole, st.TATFrac-frac
	if f < 0 { // both fractions are in [0, limit): one borrow
		us, f = us-1, f+c.Limit
	}
	if us < at {
		us, f = at, 0
	}
	st.TAT, st.TATFrac = us, f
}

// times returns n*T as whole microseconds and a fraction in units of 1/limit; ok is
// false when the whole part does not fit in int64.
func (c *compiled) times(n int64) (whole, frac int64, ok bool) {
	hi, lo := bits.Mul64(uint64(n), uint64(c.q))
	carry, frac, _ := mulAddDivMod(n, c.r, 0, c.Limit) // carry <= n, since r < limit
	if hi != 0 || lo > math.MaxInt64 || int64(lo) > math.MaxInt64-carry {
		return 0, 0, false
	}
	return int64(lo) + carry, frac, true
}
