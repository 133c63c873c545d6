package limiter

import "math/bits"

// The buckets are GCRA: one theoretical arrival time (TAT) per key, the instant at which
// the bucket would be full again. A request of cost moves TAT by cost emission
// intervals T = period/limit and is allowed iff the new TAT is at most now + burst*T.
// TAT is kept exactly as whole microseconds plus a fraction in units of 1/limit.

func (c *compiled) bucketEvaluate(st *State, now, cost int64, peek bool) Outcome {
	at, tat, frac, nt, nf := c.bucketStep(st, now, cost)
	lt, lf := at+c.tolUS, c.tolFrac // the latest TAT the bucket tolerates
	if nt > lt || nt == lt && nf > lf {
		return Outcome{
			Remaining:  c.tokens(lt-tat, lf-frac),
			Reset:      ceilFrac(tat, frac),
			RetryAfter: c.retryAfter(now, nt, nf),
		}
	}
	if peek {
		return Outcome{Allowed: true, Remaining: c.tokens(lt-tat, lf-frac), Reset: ceilFrac(tat, frac)}
	}
	o := Outcome{Allowed: true, Remaining: c.tokens(lt-nt, lf-nf), Reset: ceilFrac(nt, nf)}
	if c.kind == kindLeaky {
		o.Delay = ceilFrac(tat, frac) - at
	}
	return o
}

func (c *compiled) bucketConsume(st *State, now, cost int64) {
	at, _, _, nt, nf := c.bucketStep(st, now, cost)
	st.TAT, st.TATFrac, st.Last = nt, nf, at
}

// bucketDecide is bucketEvaluate and, when allowed, bucketConsume in one step, for a
// set of this one rule: it writes the set's Decision into d field by field (building
// one and copying it costs more than the arithmetic).
func (c *compiled) bucketDecide(st *State, now, cost int64, d *Decision) {
	at, tat, frac, nt, nf := c.bucketStep(st, now, cost)
	lt, lf := at+c.tolUS, c.tolFrac
	d.Rule, d.Limit, d.Delay = 0, c.capacity, 0
	if nt > lt || nt == lt && nf > lf {
		d.Allowed, d.Remaining, d.RetryAfter = false, 0, c.retryAfter(now, nt, nf)
		if cost > 1 { // less than cost is left, so nothing for cost 1: no division
			d.Remaining = c.tokens(lt-tat, lf-frac)
		}
		d.Reset = ceilFrac(tat, frac)
		d.RuleReset = d.Reset
		return
	}
	st.TAT, st.TATFrac, st.Last = nt, nf, at
	d.Allowed, d.Remaining, d.RetryAfter = true, c.tokens(lt-nt, lf-nf), 0
	d.Reset = ceilFrac(nt, nf)
	d.RuleReset = d.Reset
	if c.kind == kindLeaky {
		d.Delay = ceilFrac(tat, frac) - at
	}
}

// bucketStep is the arithmetic of a request of cost at now: the instant at it counts
// from (the clock-skew rule), and the TAT before it (tat, frac) and after it (nt, nf).
func (c *compiled) bucketStep(st *State, now, cost int64) (at, tat, frac, nt, nf int64) {
	at = max(now, st.Last)
	tat, frac = st.TAT, st.TATFrac
	if tat < at {
		tat, frac = at, 0 // the bucket is full
	}
	nt, nf = c.advance(tat, frac, cost)
	return at, tat, frac, nt, nf
}

// retryAfter is how long after now a request denied for moving the TAT to (nt, nf)
// could first be allowed: when that TAT is within the tolerance.
func (c *compiled) retryAfter(now, nt, nf int64) int64 {
	rt, rf := nt-c.tolUS, nf-c.tolFrac
	if rf < 0 { // both fractions are in [0, limit): one borrow, no division
		rt, rf = rt-1, rf+c.Limit
	}
	return ceilFrac(rt, rf) - now
}

// advance returns tat + n*T. n*r, below cost x limit, may exceed int64: its 128-bit
// product is divided only when it carries into whole microseconds.
func (c *compiled) advance(tat, frac, n int64) (int64, int64) {
	hi, lo := bits.Mul64(uint64(n), uint64(c.r))
	lo, carry := bits.Add64(lo, uint64(frac), 0)
	hi += carry
	if hi == 0 && lo < uint64(c.Limit) { // 0 <= f < limit: no carry, no division
		return tat + n*c.q, int64(lo)
	}
	// n*r + frac < (n+1)*limit, so the quotient is at most n and hi < limit.
	q, rem := bits.Div64(hi, lo, uint64(c.Limit))
	return tat + n*c.q + int64(q), int64(rem)
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
