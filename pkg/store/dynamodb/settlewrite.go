package dynamodb

import (
	"maps"
	"slices"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb/internal/expr"
)

// settleRule adds to p the condition and update that take rule i's stored state from
// its guess before to after (limiter.Set.Settle's result on it), nothing when they are
// the same. A concurrency release is relative (release); the other rules' changes are
// pinned: each attribute the rule reads is conditioned on its guessed value, and the
// changed ones are SET, so the settlement applies only in the branch the guess is in.
// It reports whether that is sure: false for a release or a refund that changes
// nothing, which a guess older than the item could make wrong.
func (p *plan) settleRule(set *limiter.Set, i int, prefix string, before, after *limiter.State, st store.Settlement) bool {
	b, a := before, after
	switch r := set.Rule(i); r.Algorithm {
	case limiter.Concurrency:
		return p.release(set, i, prefix, before, after, st.At, st.Now)
	case limiter.SlidingLog:
		return p.settleLog(prefix, before, after) || st.Delta == 0
	case limiter.FixedWindow:
		if r.Anchor != limiter.AnchorFirstRequest && p.relativeCount(prefix, b, a, st.Delta) {
			return true
		}
		return p.pinned(prefix, []field{{fWindowStart, b.WindowStart, a.WindowStart}, {fWindowEnd, b.WindowEnd, a.WindowEnd}, {fCount, b.Count, a.Count}}) || st.Delta == 0
	case limiter.SlidingWindow:
		return p.pinned(prefix, []field{{fWindowStart, b.WindowStart, a.WindowStart}, {fCount, b.Count, a.Count}, {fPrev, b.Prev, a.Prev}, {fLast, b.Last, a.Last}}) || st.Delta == 0
	default:
		if b.TAT == a.TAT && b.TATFrac == a.TATFrac && b.Last == a.Last {
			return st.Delta == 0
		}
		t := p.name(prefix, fTAT)
		if pinned := t.Equal(p.bigNum(scaled(b.TAT, r.Limit, b.TATFrac))); b.TAT == 0 && b.TATFrac == 0 {
			p.require(absentOr(t, pinned))
		} else {
			p.require(pinned)
		}
		p.update.Set(t, p.bigNum(scaled(a.TAT, r.Limit, a.TATFrac)))
		p.pin(prefix, []field{{fLast, b.Last, a.Last}})
		return true
	}
}

// relativeCount settles a fixed window whose window the settlement leaves as the
// guess has it with a relative ADD of the count, so that concurrent settles and
// decisions of one window do not conflict: a charge is conditioned on the window
// alone (it may leave a debt), a refund of the whole -delta on the window and on a
// count that holds it, as limiter.Set.Settle refunds on the true state. A refund the
// guessed count cuts short, or a settlement that moves the window, is left to the
// pinned update; so is one that changes nothing. It reports whether it applied.
func (p *plan) relativeCount(prefix string, b, a *limiter.State, delta int64) bool {
	k := a.Count - b.Count
	if k == 0 || b.WindowStart != a.WindowStart || b.WindowEnd != a.WindowEnd || k < 0 && k != delta {
		return false
	}
	ws, c := p.name(prefix, fWindowStart), p.name(prefix, fCount)
	cond := ws.Equal(p.num(b.WindowStart))
	if k < 0 {
		cond = cond.And(c.GreaterThan(p.num(-k - 1)))
	}
	p.require(cond)
	p.update.Add(c, p.num(k))
	return true
}

// field is one number attribute of a rule's state: its guessed value and the value
// the settlement leaves.
type field struct {
	name          string
	before, after int64
}

// pinned conditions each field on its guessed value (absent stands for 0) and SETs the
// changed ones; nothing when none changed. It reports whether one changed.
func (p *plan) pinned(prefix string, fs []field) bool {
	changed := slices.ContainsFunc(fs, func(f field) bool { return f.before != f.after })
	if changed {
		p.pin(prefix, fs)
	}
	return changed
}

// pin conditions each field on its guessed value (absent stands for 0) and SETs the
// changed ones.
func (p *plan) pin(prefix string, fs []field) {
	for _, f := range fs {
		p.require(p.is(p.name(prefix, f.name), f.before))
		if f.before != f.after {
			p.update.Set(p.name(prefix, f.name), p.num(f.after))
		}
	}
}

// is is "path = v", or "absent or 0" for v = 0 (a missing attribute reads as 0).
func (p *plan) is(path expr.Path, v int64) expr.Cond {
	if v == 0 {
		return absentOr(path, path.Equal(p.num(0)))
	}
	return path.Equal(p.num(v))
}

// release frees the slot limiter.Set.Settle freed in the guess: one slot of entry x,
// the first live entry at or after SlotExpiry(at) holding one. The update is relative
// (x's slots and n less one), so it does not conflict with instances taking slots;
// the condition pins the branch: x holds a slot and is live (l < x), and no live
// entry between SlotExpiry(at) and x holds one (see pinEmpty). It reports whether the
// guess had a slot to release.
func (p *plan) release(set *limiter.Set, i int, prefix string, b, a *limiter.State, at, now int64) bool {
	k := 0
	for k < b.Log.Len() && b.Log.At(k).Cost == a.Log.At(k).Cost {
		k++
	}
	if k == b.Log.Len() {
		return false // nothing live to release
	}
	x, l, n := b.Log.At(k).At, p.name(prefix, fLast), p.name(prefix, fLogTotal)
	slot := p.entryPath(prefix, x)
	p.require(slot.GreaterThan(p.num(0)).And(absentOr(l, l.LessThan(p.num(x)))))
	p.pinEmpty(set, i, prefix, b, k, set.SlotExpiry(i, at), max(now, b.Last), x)
	p.update.Set(slot, slot.Plus(p.num(-1)))
	p.update.Add(n, p.num(-1))
	return true
}

// maxPinnedExpiries bounds the expiries pinEmpty conditions one by one: the 17 a
// rule's live entries span, and as many again for instances whose clocks run ahead.
const maxPinnedExpiries = 2 * (limiter.LeaseQuanta + 1)

// pinEmpty conditions the release of x on the entries between e (the reservation's
// SlotExpiry) and x that are live after live holding no slot: every multiple of the
// rule's quantum there (an expiry is always one), absent or 0, so that a slot filed
// there that the guess does not hold fails the condition, and the retry, on the item
// it returns, releases that slot instead. (A guess may lack one: another instance's,
// or the request's own, filed by a write whose guess was older than the item; were x
// released in its place, the settle of x's own slot would later find none and a slot
// would stay held until its lease ended.) Beyond maxPinnedExpiries it pins the guess's
// entries (the first k of b) alone.
func (p *plan) pinEmpty(set *limiter.Set, i int, prefix string, b *limiter.State, k int, e, live, x int64) {
	q := set.SlotQuantum(i)
	from := max(e, live-live%q+q) // the first expiry after live, at or after e
	if (x-from)/q <= maxPinnedExpiries {
		for y := from; y < x; y += q {
			p.require(p.is(p.entryPath(prefix, y), 0))
		}
		return
	}
	for j := range k {
		if y := b.Log.At(j).At; y > live && y >= e {
			p.require(p.is(p.entryPath(prefix, y), 0))
		}
	}
}

// settleLog takes a sliding log from before to after: entries removed, changed and
// added, each pinned to its guessed value (or absence), its total n and l pinned. A
// guess without entries writes the map whole. It reports whether the log changed.
func (p *plan) settleLog(prefix string, b, a *limiter.State) bool {
	bm, am := logMap(b), logMap(a)
	if b.Count == a.Count && b.Last == a.Last && maps.Equal(bm, am) {
		return false
	}
	p.pin(prefix, []field{{fLogTotal, b.Count, a.Count}, {fLast, b.Last, a.Last}})
	g0 := p.name(prefix, fLog)
	if len(bm) == 0 {
		p.update.Set(g0, p.update.IntMap(am))
		return true
	}
	p.require(expr.Exists(g0))
	for k, v := range bm {
		if _, ok := am[k]; !ok {
			entry := p.name(prefix, fLog+"."+k)
			p.require(entry.Equal(p.num(v)))
			p.update.Remove(entry)
		}
	}
	for k, v := range am {
		entry := p.name(prefix, fLog+"."+k)
		old, ok := bm[k]
		switch {
		case !ok:
			p.require(expr.NotExists(entry))
		case old == v:
			continue
		default:
			p.require(entry.Equal(p.num(old)))
		}
		p.update.Set(entry, p.num(v))
	}
	return true
}

// logMap is a log's entries as the item's map holds them: instant -> cost.
func logMap(st *limiter.State) map[string]int64 {
	m := make(map[string]int64, st.Log.Len())
	for k := range st.Log.Len() {
		e := st.Log.At(k)
		m[strconv.FormatInt(e.At, 10)] = e.Cost
	}
	return m
}
