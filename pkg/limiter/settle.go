package limiter

// Settle applies one settlement to the states of one counter of s: a request reserved
// at instant at, settled at now for delta more (or, negative, less) than it reserved.
// States that hold no state for a rule change only as a request would change them.
//
// For every rule but concurrency:
//   - delta > 0 is charged at now whatever the rule's state: a window or a bucket may
//     go into debt, reported as Remaining 0, and later requests are denied until it is
//     paid back;
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

// bucketRefund moves the theoretical arrival time back by n emission intervals, to
// no earlier than the effective now: a full bucket stays full.
func (c *compiled) bucketRefund(st *State, now, n int64) {
	at := max(now, st.Last)
	if st.TAT < at || st.TAT == at && st.TATFrac == 0 {
		return // full
	}
	// (TAT, frac) - n*(q + r/limit), in whole microseconds and a fraction in [0, limit).
	us := st.TAT - mulDiv(n, c.q, 1)
	back := mulDiv(n, c.r, 1) // n*r: its whole microseconds and the remaining fraction
	us -= back / c.Limit
	frac := st.TATFrac - back%c.Limit
	if frac < 0 {
		us, frac = us-1, frac+c.Limit
	}
	if us < at {
		us, frac = at, 0
	}
	st.TAT, st.TATFrac = us, frac
}
