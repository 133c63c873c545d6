package limiter

// logLive returns the effective now (never before the newest entry: the clock-skew
// rule), how many of the oldest entries lie outside (now-period, now], their total
// cost, and the cost still inside.
func (c *compiled) logLive(st *State, now int64) (at int64, expired int, expiredCost, used int64) {
	l := &st.Log
	at = now
	if l.n > 0 {
		at = max(now, l.At(l.n-1).At)
	}
	for expired < l.n && l.At(expired).At <= at-c.period {
		expiredCost += l.At(expired).Cost
		expired++
	}
	return at, expired, expiredCost, st.Count - expiredCost
}

// logEvaluate allows a request of cost iff the cost admitted in (now-period, now] plus
// cost is at most limit.
func (c *compiled) logEvaluate(st *State, now, cost int64, peek bool) Outcome {
	at, expired, _, used := c.logLive(st, now)
	if used+cost <= c.Limit {
		if peek {
			return Outcome{Allowed: true, Remaining: c.Limit - used, Reset: c.logReset(st, at, expired)}
		}
		return Outcome{Allowed: true, Remaining: c.Limit - used - cost, Reset: at + c.period}
	}
	// Denied: wait until the oldest live entries expire and free enough.
	need, retryAt := used+cost-c.Limit, at
	for i := expired; i < st.Log.n && need > 0; i++ {
		e := st.Log.At(i)
		need -= e.Cost
		retryAt = e.At + c.period
	}
	return Outcome{Remaining: max(c.Limit-used, 0), Reset: c.logReset(st, at, expired), RetryAfter: retryAt - now}
}

// logReset is when the newest live entry expires (at when none is live).
func (c *compiled) logReset(st *State, at int64, expired int) int64 {
	if st.Log.n == expired {
		return at
	}
	return st.Log.At(st.Log.n-1).At + c.period
}

func (c *compiled) logConsume(st *State, now, cost int64) {
	at, expired, expiredCost, _ := c.logLive(st, now)
	st.Log.Drop(expired)
	st.Log.Push(at, cost)
	st.Count += cost - expiredCost
	st.Last = at
}
