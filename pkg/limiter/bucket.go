package limiter

// The buckets are GCRA: one theoretical arrival time (TAT) per key, the instant at which
// the bucket would be full again. A request of cost moves TAT by cost emission
// intervals T = period/limit and is allowed iff the new TAT is at most now + burst*T.
// TAT is kept exactly as whole microseconds plus a fraction in units of 1/limit.

func (c *compiled) bucketEvaluate(st *State, now, cost int64, peek bool) Outcome {
	at := max(now, st.Last) // the clock-skew rule
	tat, frac := st.TAT, st.TATFrac
	if tat < at {
		tat, frac = at, 0 // the bucket is full
	}
	nt, nf := c.advance(tat, frac, cost)
	lt, lf := at+c.tolUS, c.tolFrac // the latest TAT the bucket tolerates
	if nt > lt || nt == lt && nf > lf {
		rt, rf := c.norm(nt-c.tolUS, nf-c.tolFrac)
		return Outcome{
			Remaining:  c.tokens(lt-tat, lf-frac),
			Reset:      ceilFrac(tat, frac),
			RetryAfter: ceilFrac(rt, rf) - now,
		}
	}
	if peek {
		return Outcome{Allowed: true, Remaining: c.tokens(lt-tat, lf-frac), Reset: ceilFrac(tat, frac)}
	}
	o := Outcome{Allowed: true, Remaining: c.tokens(lt-nt, lf-nf), Reset: ceilFrac(nt, nf)}
	if c.Algorithm == LeakyBucket {
		o.Delay = ceilFrac(tat, frac) - at
	}
	return o
}

func (c *compiled) bucketConsume(st *State, now, cost int64) {
	at := max(now, st.Last)
	tat, frac := st.TAT, st.TATFrac
	if tat < at {
		tat, frac = at, 0
	}
	st.TAT, st.TATFrac = c.advance(tat, frac, cost)
	st.Last = at
}

// advance returns tat + n*T.
func (c *compiled) advance(tat, frac, n int64) (int64, int64) {
	f := frac + n*c.r
	return tat + n*c.q + f/c.Limit, f % c.Limit
}

// norm brings a fraction back into [0, limit).
func (c *compiled) norm(us, frac int64) (int64, int64) {
	for frac < 0 {
		frac += c.Limit
		us--
	}
	return us + frac/c.Limit, frac % c.Limit
}

// tokens returns floor(D/T), the whole requests that fit in the span D = us + frac/limit.
func (c *compiled) tokens(us, frac int64) int64 {
	us, frac = c.norm(us, frac)
	if us < 0 {
		return 0
	}
	return mulAddDiv(us, c.Limit, frac, c.period)
}

// ceilFrac rounds us + frac/limit up to whole microseconds.
func ceilFrac(us, frac int64) int64 {
	if frac > 0 {
		return us + 1
	}
	return us
}
