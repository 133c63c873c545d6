package dynamodb

import (
	"math/big"
	"math/bits"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb/internal/expr"
)

// plan accumulates the condition and update of one decision's UpdateItem: for each
// rule, the branch its guessed state is in (see the package doc).
type plan struct {
	cond    expr.Cond    // "" until the first require
	update  expr.Builder // the update's actions, and the placeholders of both
	expires int64        // microseconds: when every rule's state is idle, at the latest
	// retry: the write follows one that failed; relative updates then leave l alone.
	retry bool
	// keepsL has bit i set when rule i's update is relative (ADD, t = t + x) and
	// neither conditions nor sets the rule's l (see plan.relativeClock): the stored l
	// stays as it was.
	keepsL uint8
}

// relativeClock ends a relative update of rule prefix, whose guessed l is last: it
// conditions l <= :at and sets l (clock), or leaves l alone and reports true. It
// leaves l alone when the request's instant is not after last (l would not move), or
// on a retry (another instance moved l past the guess; conditioning again would
// conflict with every interleaved instant). The update's condition is then evaluated
// at max(now, last), which is never later than the instant the limiter evaluates the
// stored state at (the stored l only grows, and a guess's l is never later than it),
// so it is never looser than the limiter.
func (p *plan) relativeClock(prefix string, now, at, last int64) bool {
	if p.retry || now <= last {
		return true
	}
	p.clock(prefix, at)
	return false
}

func (p *plan) require(c expr.Cond) { p.cond = p.cond.And(c) }

func (p *plan) name(prefix, field string) expr.Path { return p.update.Path(prefix + field) }
func (p *plan) num(v int64) expr.Operand            { return p.update.Int(v) }
func (p *plan) bigNum(v *big.Int) expr.Operand      { return p.update.Number(v) }

// absentOr is "attribute_not_exists(n) OR c".
func absentOr(n expr.Path, c expr.Cond) expr.Cond { return expr.NotExists(n).Or(c) }

// planRule adds rule i's branch, chosen from its guessed state g, to p.
func (p *plan) planRule(set *limiter.Set, i int, prefix string, g *limiter.State, now, cost int64) {
	r := set.Rule(i)
	switch r.Algorithm {
	case limiter.FixedWindow:
		if r.Anchor == limiter.AnchorFirstRequest {
			p.anchored(r, prefix, g, now, cost)
		} else {
			start, end := set.Window(i, now)
			p.fixed(r, prefix, g, start, end, cost)
		}
	case limiter.SlidingWindow:
		if p.sliding(r, prefix, g, now, cost) {
			p.keepsL |= 1 << i
		}
	case limiter.SlidingLog:
		p.log(r, prefix, g, now, cost)
	case limiter.Concurrency:
		if p.conc(set, i, prefix, g, now) {
			p.keepsL |= 1 << i
		}
	default:
		_, _, tolUS, _ := set.Emission(i)
		if p.bucket(r, prefix, g, now, cost, tolUS+1) {
			p.keepsL |= 1 << i
		}
	}
}

// fixed: ADD to the current window's count, or open a new window.
func (p *plan) fixed(r limiter.Rule, prefix string, g *limiter.State, start, end, cost int64) {
	ws, we, c := p.name(prefix, fWindowStart), p.name(prefix, fWindowEnd), p.name(prefix, fCount)
	grace := int64(0)
	if r.Period.IsCalendar() {
		grace = limiter.CalendarGrace
	}
	switch {
	case g.WindowStart >= start: // also a window emptied by a refund or a give-back
		if g.WindowStart > start { // clock skew: the state's window is later
			start, end = g.WindowStart, g.WindowEnd
		}
		p.require(ws.Equal(p.num(start)).And(c.LessThanEqual(p.num(r.Limit - cost))))
		p.update.Add(c, p.num(cost))
		p.update.Set(we, p.num(end))
	default:
		p.require(absentOr(ws, ws.LessThan(p.num(start))))
		p.update.Set(ws, p.num(start))
		p.update.Set(we, p.num(end))
		p.update.Set(c, p.num(cost))
	}
	p.expires = max(p.expires, end+grace)
}

// anchored: a window opened by the first request after the previous one ended.
func (p *plan) anchored(r limiter.Rule, prefix string, g *limiter.State, now, cost int64) {
	ws, we, c := p.name(prefix, fWindowStart), p.name(prefix, fWindowEnd), p.name(prefix, fCount)
	if now < g.WindowEnd {
		p.require(we.Equal(p.num(g.WindowEnd)).And(c.LessThanEqual(p.num(r.Limit - cost))))
		p.update.Add(c, p.num(cost))
		p.expires = max(p.expires, g.WindowEnd)
		return
	}
	end := now + r.Period.Micros()
	p.require(absentOr(we, we.LessThanEqual(p.num(now))))
	p.update.Set(ws, p.num(now))
	p.update.Set(we, p.num(end))
	p.update.Set(c, p.num(cost))
	p.expires = max(p.expires, end)
}

// clock adds the clock-skew rule's l <= :at and sets l.
func (p *plan) clock(prefix string, at int64) {
	l := p.name(prefix, fLast)
	p.require(absentOr(l, l.LessThanEqual(p.num(at))))
	p.update.Set(l, p.num(at))
}

// sliding: ADD within the window with its previous count pinned, or roll the window.
// It reports whether the update leaves l alone (an ADD, see plan.relativeClock).
func (p *plan) sliding(r limiter.Rule, prefix string, g *limiter.State, now, cost int64) bool {
	ws, c, prev := p.name(prefix, fWindowStart), p.name(prefix, fCount), p.name(prefix, fPrev)
	period := r.Period.Micros()
	at := max(now, g.Last)
	start := at - at%period
	p.expires = max(p.expires, start+2*period)
	switch g.WindowStart {
	case start:
		weighted := weightedPrev(g.Prev, period-(at-start), period)
		p.require(ws.Equal(p.num(start)).And(prev.Equal(p.num(g.Prev))).And(c.LessThanEqual(p.num(r.Limit - cost - weighted))))
		p.update.Add(c, p.num(cost))
		return p.relativeClock(prefix, now, at, g.Last)
	case start - period:
		p.require(ws.Equal(p.num(g.WindowStart)).And(c.Equal(p.num(g.Count))))
		p.update.Set(ws, p.num(start))
		p.update.Set(prev, p.num(g.Count))
		p.update.Set(c, p.num(cost))
	default:
		p.require(absentOr(ws, ws.LessThan(p.num(start-period))))
		p.update.Set(ws, p.num(start))
		p.update.Set(prev, p.num(0))
		p.update.Set(c, p.num(cost))
	}
	p.clock(prefix, at)
	return false
}

// weightedPrev is floor(prev*left/period), what the previous window still weighs with
// left of period to go. The product passes int64 at the rule bounds (1e12 x 31 days in
// microseconds), so it is formed in 128 bits; the quotient is at most prev, since left
// is at most period.
func weightedPrev(prev, left, period int64) int64 {
	hi, lo := bits.Mul64(uint64(prev), uint64(left))
	q, _ := bits.Div64(hi, lo, uint64(period))
	return int64(q)
}

// bucket: move the scaled TAT forward by cost intervals, relative when the bucket is
// not full, absolute when it is. It reports whether the update leaves l alone (a
// relative one, see plan.relativeClock).
func (p *plan) bucket(r limiter.Rule, prefix string, g *limiter.State, now, cost, tolUS int64) bool {
	t := p.name(prefix, fTAT)
	at := max(now, g.Last)
	period := r.Period.Micros()
	atL := scaled(at, r.Limit, 0)
	step := scaled(cost, period, 0) // cost intervals, in units of 1/limit microsecond
	p.expires = max(p.expires, at+tolUS)
	if g.TAT < at || g.TAT == at && g.TATFrac == 0 {
		p.clock(prefix, at)
		p.require(absentOr(t, t.LessThanEqual(p.bigNum(atL))))
		p.update.Set(t, p.bigNum(new(big.Int).Add(atL, step)))
		return false
	}
	limit := new(big.Int).Add(atL, scaled(r.Burst-cost, period, 0))
	p.require(t.GreaterThan(p.bigNum(atL)).And(t.LessThanEqual(p.bigNum(limit))))
	p.update.Set(t, t.Plus(p.bigNum(step)))
	return p.relativeClock(prefix, now, at, g.Last)
}

// log: count the cost at this instant in the map, drop expired instants, keep the total.
func (p *plan) log(r limiter.Rule, prefix string, g *limiter.State, now, cost int64) {
	g0, n := p.name(prefix, fLog), p.name(prefix, fLogTotal)
	at := max(now, g.Last)
	p.clock(prefix, at)
	p.expires = max(p.expires, at+r.Period.Micros())
	entry := p.entryPath(prefix, at)
	if g.Count == 0 && g.Log.Len() == 0 {
		p.require(expr.NotExists(n).Or(n.Equal(p.num(0))))
		p.update.Set(g0, p.update.IntMap(map[string]int64{strconv.FormatInt(at, 10): cost}))
		p.update.Set(n, p.num(cost))
		return
	}
	expiredCost := p.removeExpired(prefix, g, at-r.Period.Micros())
	p.require(expr.Exists(g0).And(n.LessThanEqual(p.num(r.Limit - cost + expiredCost))))
	p.update.Add(n, p.num(cost-expiredCost))
	// ADD cannot reach into a map: add to this instant's entry when the guess has it,
	// else create it; concurrent creators conflict and the loser adds.
	if newest := g.Log.Len() - 1; newest >= 0 && g.Log.At(newest).At == at {
		p.require(expr.Exists(entry))
		p.update.Set(entry, entry.Plus(p.num(cost)))
	} else {
		p.require(expr.NotExists(entry))
		p.update.Set(entry, p.num(cost))
	}
}
