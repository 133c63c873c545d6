package limiter

// slidingCounts returns the effective now (the clock-skew rule), the current window's
// start, and the previous and current windows' counts.
func (c *compiled) slidingCounts(st *State, now int64) (at, ws, prev, curr int64) {
	at = max(now, st.Last)
	ws = at - at%c.period
	switch st.WindowStart {
	case ws:
		return at, ws, st.Prev, st.Count
	case ws - c.period:
		return at, ws, st.Count, 0
	}
	return at, ws, 0, 0
}

// slidingEvaluate decides with the counter approximation: a request of cost is allowed
// iff prev*(period-e) + (curr+cost-1)*period < limit*period, e being the time elapsed
// in the current window. In integers that is cost <= limit - curr - floor(prev*(period-e)/period).
func (c *compiled) slidingEvaluate(st *State, now, cost int64, peek bool) Outcome {
	at, ws, prev, curr := c.slidingCounts(st, now)
	avail := c.Limit - curr - mulDiv(prev, c.period-(at-ws), c.period)
	if cost > avail {
		return Outcome{
			Remaining:  max(avail, 0),
			Reset:      slidingReset(at, ws, c.period, prev, curr),
			RetryAfter: c.slidingRetryAt(ws, prev, curr, cost) - now,
		}
	}
	if peek {
		return Outcome{Allowed: true, Remaining: avail, Reset: slidingReset(at, ws, c.period, prev, curr)}
	}
	return Outcome{Allowed: true, Remaining: avail - cost, Reset: slidingReset(at, ws, c.period, prev, curr+cost)}
}

// slidingReset is when both windows' counts have stopped weighing.
func slidingReset(at, ws, period, prev, curr int64) int64 {
	switch {
	case curr > 0:
		return ws + 2*period
	case prev > 0:
		return ws + period
	}
	return at
}

// slidingRetryAt returns the first instant at which a request of cost is allowed,
// given that it is denied now. Within a window, floor(prev*(period-e)/period) <= m
// holds iff period-e <= floor(((m+1)*period-1)/prev). The products exceed int64 at the
// rule bounds: mulDivBelow keeps them in 128 bits.
func (c *compiled) slidingRetryAt(ws, prev, curr, cost int64) int64 {
	p := c.period
	if m := c.Limit - curr - cost; m >= 0 && prev > 0 {
		if e := p - mulDivBelow(m+1, p, prev); e < p {
			return ws + e
		}
	}
	// The next window: its previous count is curr and its current count 0.
	if curr == 0 {
		return ws + p
	}
	e := max(p-mulDivBelow(c.Limit-cost+1, p, curr), 0)
	return ws + p + e
}

func (c *compiled) slidingConsume(st *State, now, cost int64) {
	at, ws, prev, curr := c.slidingCounts(st, now)
	st.WindowStart, st.Prev, st.Count, st.Last = ws, prev, curr+cost, at
}
