package limiter

import "sync/atomic"

// fixedWindow returns the window a request at now falls in, and the cost already
// admitted in it.
func (c *compiled) fixedWindow(st *State, z *Zone, now int64) (start, end, count int64) {
	if c.Anchor == AnchorFirstRequest {
		if now < st.WindowEnd { // also a now before the window opened: clock skew
			return st.WindowStart, st.WindowEnd, st.Count
		}
		return now, now + c.period, 0
	}
	if c.Period.IsCalendar() {
		start, end = c.calendar.window(z, c.Period.Unit(), now)
	} else {
		start = now - now%c.period
		end = start + c.period
	}
	switch {
	case st.WindowStart == start:
		return start, end, st.Count // end may have moved: a change of zone extends a window
	case st.WindowStart > start:
		// Clock skew: another instance already opened a later window. No time elapsed.
		return st.WindowStart, st.WindowEnd, st.Count
	}
	return start, end, 0
}

func (c *compiled) fixedEvaluate(st *State, z *Zone, now, cost int64, peek bool) Outcome {
	_, end, count := c.fixedWindow(st, z, now)
	if count+cost > c.Limit {
		return Outcome{Remaining: max(c.Limit-count, 0), Reset: end, RetryAfter: end - now} // a settled charge may leave a debt
	}
	o := Outcome{Allowed: true, Remaining: c.Limit - count - cost, Reset: end}
	if peek {
		o.Remaining += cost
		if count == 0 {
			o.Reset = now
		}
	}
	return o
}

func (c *compiled) fixedConsume(st *State, z *Zone, now, cost int64) {
	start, end, count := c.fixedWindow(st, z, now)
	st.WindowStart, st.WindowEnd, st.Count = start, end, count+cost
}

// windowCache remembers the last calendar window computed for a rule, so that the time
// zone arithmetic runs once per window rather than once per request.
type windowCache struct {
	last atomic.Pointer[[2]int64]
}

func (wc *windowCache) window(z *Zone, u Unit, now int64) (start, end int64) {
	if w := wc.last.Load(); w != nil && now >= w[0] && now < w[1] {
		return w[0], w[1]
	}
	start, end = z.Window(u, now)
	wc.last.Store(&[2]int64{start, end})
	return start, end
}
