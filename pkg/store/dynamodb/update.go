package dynamodb

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// plan accumulates the condition and update of one decision's UpdateItem: for each
// rule, the branch its guessed state is in (see the package doc).
type plan struct {
	cond    expression.ConditionBuilder
	hasCond bool
	update  expression.UpdateBuilder
	expires int64 // microseconds: when every rule's state is idle, at the latest
}

func (p *plan) require(c expression.ConditionBuilder) {
	if p.hasCond {
		p.cond = p.cond.And(c)
	} else {
		p.cond, p.hasCond = c, true
	}
}

func name(prefix, field string) expression.NameBuilder { return expression.Name(prefix + field) }
func num(v int64) expression.ValueBuilder              { return expression.Value(v) }
func bigNum(s string) expression.ValueBuilder          { return expression.Value(attributevalue.Number(s)) }

// absentOr is "attribute_not_exists(n) OR c".
func absentOr(n expression.NameBuilder, c expression.ConditionBuilder) expression.ConditionBuilder {
	return expression.AttributeNotExists(n).Or(c)
}

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
		p.sliding(r, prefix, g, now, cost)
	case limiter.SlidingLog:
		p.log(r, prefix, g, now, cost)
	default:
		_, _, tolUS, _ := set.Emission(i)
		p.bucket(r, prefix, g, now, cost, tolUS+1)
	}
}

// fixed: ADD to the current window's count, or open a new window.
func (p *plan) fixed(r limiter.Rule, prefix string, g *limiter.State, start, end, cost int64) {
	ws, we, c := name(prefix, fWindowStart), name(prefix, fWindowEnd), name(prefix, fCount)
	grace := int64(0)
	if r.Period.IsCalendar() {
		grace = limiter.CalendarGrace
	}
	switch {
	case g.WindowStart >= start && g.Count > 0:
		if g.WindowStart > start { // clock skew: the state's window is later
			start, end = g.WindowStart, g.WindowEnd
		}
		p.require(ws.Equal(num(start)).And(c.LessThanEqual(num(r.Limit - cost))))
		p.update = p.update.Add(c, num(cost)).Set(we, num(end))
	default:
		p.require(absentOr(ws, ws.LessThan(num(start))))
		p.update = p.update.Set(ws, num(start)).Set(we, num(end)).Set(c, num(cost))
	}
	p.expires = max(p.expires, end+grace)
}

// anchored: a window opened by the first request after the previous one ended.
func (p *plan) anchored(r limiter.Rule, prefix string, g *limiter.State, now, cost int64) {
	ws, we, c := name(prefix, fWindowStart), name(prefix, fWindowEnd), name(prefix, fCount)
	if now < g.WindowEnd {
		p.require(we.Equal(num(g.WindowEnd)).And(c.LessThanEqual(num(r.Limit - cost))))
		p.update = p.update.Add(c, num(cost))
		p.expires = max(p.expires, g.WindowEnd)
		return
	}
	end := now + r.Period.Micros()
	p.require(absentOr(we, we.LessThanEqual(num(now))))
	p.update = p.update.Set(ws, num(now)).Set(we, num(end)).Set(c, num(cost))
	p.expires = max(p.expires, end)
}

// clock adds the clock-skew rule's l <= :at and sets l.
func (p *plan) clock(prefix string, at int64) {
	l := name(prefix, fLast)
	p.require(absentOr(l, l.LessThanEqual(num(at))))
	p.update = p.update.Set(l, num(at))
}

// sliding: ADD within the window with its previous count pinned, or roll the window.
func (p *plan) sliding(r limiter.Rule, prefix string, g *limiter.State, now, cost int64) {
	ws, c, prev := name(prefix, fWindowStart), name(prefix, fCount), name(prefix, fPrev)
	period := r.Period.Micros()
	at := max(now, g.Last)
	start := at - at%period
	p.clock(prefix, at)
	p.expires = max(p.expires, start+2*period)
	switch g.WindowStart {
	case start:
		weighted := g.Prev * (period - (at - start)) / period // <= 1e6 x 31 days: fits int64
		p.require(ws.Equal(num(start)).And(prev.Equal(num(g.Prev))).And(c.LessThanEqual(num(r.Limit - cost - weighted))))
		p.update = p.update.Add(c, num(cost))
	case start - period:
		p.require(ws.Equal(num(g.WindowStart)).And(c.Equal(num(g.Count))))
		p.update = p.update.Set(ws, num(start)).Set(prev, num(g.Count)).Set(c, num(cost))
	default:
		p.require(absentOr(ws, ws.LessThan(num(start-period))))
		p.update = p.update.Set(ws, num(start)).Set(prev, num(0)).Set(c, num(cost))
	}
}

// bucket: move the scaled TAT forward by cost intervals, relative when the bucket is
// not full, absolute when it is.
func (p *plan) bucket(r limiter.Rule, prefix string, g *limiter.State, now, cost, tolUS int64) {
	t := name(prefix, fTAT)
	at := max(now, g.Last)
	period := r.Period.Micros()
	atL := scaled(at, r.Limit, 0)
	step := scaled(cost, period, 0) // cost intervals, in units of 1/limit microsecond
	p.clock(prefix, at)
	p.expires = max(p.expires, at+tolUS)
	if g.TAT < at || g.TAT == at && g.TATFrac == 0 {
		p.require(absentOr(t, t.LessThanEqual(bigNum(atL))))
		p.update = p.update.Set(t, bigNum(sum(atL, step)))
		return
	}
	limit := sum(atL, scaled(r.Burst-cost, period, 0))
	p.require(t.GreaterThan(bigNum(atL)).And(t.LessThanEqual(bigNum(limit))))
	p.update = p.update.Set(t, t.Plus(bigNum(step)))
}

// log: count the cost at this instant in the map, drop expired instants, keep the total.
func (p *plan) log(r limiter.Rule, prefix string, g *limiter.State, now, cost int64) {
	g0, n := name(prefix, fLog), name(prefix, fLogTotal)
	at := max(now, g.Last)
	p.clock(prefix, at)
	p.expires = max(p.expires, at+r.Period.Micros())
	entry := name(prefix, fLog+"."+strconv.FormatInt(at, 10))
	if g.Count == 0 && g.Log.Len() == 0 {
		p.require(expression.AttributeNotExists(n).Or(n.Equal(num(0))))
		p.update = p.update.Set(g0, expression.Value(map[string]int64{strconv.FormatInt(at, 10): cost})).Set(n, num(cost))
		return
	}
	expiredCost := int64(0)
	for k := range g.Log.Len() {
		e := g.Log.At(k)
		if e.At > at-r.Period.Micros() {
			break
		}
		expiredCost += e.Cost
		old := name(prefix, fLog+"."+strconv.FormatInt(e.At, 10))
		p.require(expression.AttributeExists(old))
		p.update = p.update.Remove(old)
	}
	p.require(expression.AttributeExists(g0).And(n.LessThanEqual(num(r.Limit - cost + expiredCost))))
	p.update = p.update.Add(n, num(cost-expiredCost))
	// ADD cannot reach into a map: add to this instant's entry when the guess has it,
	// else create it; concurrent creators conflict and the loser adds.
	if newest := g.Log.Len() - 1; newest >= 0 && g.Log.At(newest).At == at {
		p.require(expression.AttributeExists(entry))
		p.update = p.update.Set(entry, entry.Plus(num(cost)))
	} else {
		p.require(expression.AttributeNotExists(entry))
		p.update = p.update.Set(entry, num(cost))
	}
}
