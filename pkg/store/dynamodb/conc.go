package dynamodb

import (
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb/internal/expr"
)

// A concurrency rule keeps its state as a sliding log does: g, a map of slot expiry ->
// slots held under it; n, their total (expired entries not yet removed included); and
// l, the latest instant that took a slot.

// entryPath is the path of the entry at instant (or expiry) k of rule prefix's map.
func (p *plan) entryPath(prefix string, k int64) expr.Path {
	return p.name(prefix, fLog+"."+strconv.FormatInt(k, 10))
}

// conc: take one slot under SlotExpiry(max(now, l)) when fewer than limit are held,
// removing the entries expired by then with their slots pinned. A key whose guess
// holds no entry writes the map whole (absolute, conditioned on n = 0 and on l);
// otherwise the update is relative: n is ADDed to, the slot added to its entry with
// if_not_exists, so concurrent instances taking slots do not conflict. It reports
// whether the update leaves l alone (see plan.relativeClock).
func (p *plan) conc(set *limiter.Set, i int, prefix string, g *limiter.State, now int64) bool {
	g0, n := p.name(prefix, fLog), p.name(prefix, fLogTotal)
	at := max(now, g.Last)
	e := set.SlotExpiry(i, at)
	p.expires = max(p.expires, e)
	if g.Log.Len() == 0 {
		p.clock(prefix, at)
		p.require(absentOr(n, n.Equal(p.num(0))))
		p.update.Set(g0, p.update.IntMap(map[string]int64{strconv.FormatInt(e, 10): 1}))
		p.update.Set(n, p.num(1))
		return false
	}
	p.expires = max(p.expires, g.Log.At(g.Log.Len()-1).At)
	expiredSlots := p.removeExpired(prefix, g, at)
	p.require(expr.Exists(g0).And(n.LessThanEqual(p.num(set.Rule(i).Limit - 1 + expiredSlots))))
	p.update.Add(n, p.num(1-expiredSlots))
	slot := p.entryPath(prefix, e)
	p.update.Set(slot, slot.IfNotExists(p.num(0)).Plus(p.num(1)))
	return p.relativeClock(prefix, now, at, g.Last)
}

// removeExpired removes the entries of g (a log's instants, a concurrency rule's slot
// expiries) at or before until, each conditioned on holding the cost (slots) the guess
// says, which n is decremented by (a settle may have refunded some), and returns their
// total.
func (p *plan) removeExpired(prefix string, g *limiter.State, until int64) int64 {
	var total int64
	for k := range g.Log.Len() {
		x := g.Log.At(k)
		if x.At > until {
			break
		}
		total += x.Cost
		old := p.entryPath(prefix, x.At)
		p.require(old.Equal(p.num(x.Cost)))
		p.update.Remove(old)
	}
	return total
}
