package limiter

import (
	"errors"
	"time"
)

// Zone is the time zone that a rule set's calendar windows (day, week, month) follow,
// with the history of changes of zone that may still be taking effect.
//
// A change of zone never grants a second quota and never shortens a window: with the
// current window [S, E) in the old zone, a change takes effect at M, the first window
// boundary in the new zone at or after E, and the window is extended to [S, M) under one
// quota. A further change at C before M replaces the pending one: M becomes the first
// boundary of the newest zone at or after both E and C. Each calendar unit applies this
// rule on its own windows.
//
// A nil *Zone means UTC with no changes. Zones are immutable and safe for concurrent use.
type Zone struct {
	base    *time.Location
	changes []ZoneChange
	records [Month + 1][]record // per unit, computed once
}

// ZoneChange records that at instant At (microseconds) the zone was changed to Loc.
type ZoneChange struct {
	At  int64
	Loc *time.Location
}

// NewZone returns the zone base followed by changes, which must be in order of At.
// Callers keep the history short by dropping changes that took effect for every unit
// (see Zone.Settled).
func NewZone(base *time.Location, changes ...ZoneChange) (*Zone, error) {
	if base == nil {
		return nil, errors.New("zone: nil base location")
	}
	for i, c := range changes {
		if c.Loc == nil {
			return nil, errors.New("zone: change with a nil location")
		}
		if i > 0 && c.At < changes[i-1].At {
			return nil, errors.New("zone: changes out of order")
		}
	}
	z := &Zone{base: base, changes: append([]ZoneChange(nil), changes...)}
	for _, u := range calendarUnits {
		z.records[u] = replay(u, base, changes)
	}
	return z, nil
}

// FixedZone returns a zone that has always been loc.
func FixedZone(loc *time.Location) *Zone { return &Zone{base: loc} }

// Location returns the zone's newest location: the one the tenant asked for last.
func (z *Zone) Location() *time.Location {
	switch {
	case z == nil:
		return time.UTC
	case len(z.changes) > 0:
		return z.changes[len(z.changes)-1].Loc
	}
	return z.base
}

// Window returns the calendar window [start, end) of unit u that contains t, in
// microseconds, following the zone's changes.
func (z *Zone) Window(u Unit, t int64) (start, end int64) {
	if z == nil {
		return calendarWindow(u, time.UTC, t)
	}
	recs := z.records[u]
	for i := len(recs) - 1; i >= 0; i-- {
		switch r := &recs[i]; {
		case t >= r.effective:
			return calendarWindow(u, r.to, t)
		case t >= r.start:
			return r.start, r.effective
		}
	}
	return calendarWindow(u, z.base, t)
}

// Pending reports, for unit u at instant now, a change of zone that has not yet taken
// effect: the zone it changes to and the instant it takes effect.
func (z *Zone) Pending(u Unit, now int64) (to *time.Location, effective int64, ok bool) {
	if z == nil || len(z.records[u]) == 0 {
		return nil, 0, false
	}
	r := z.records[u][len(z.records[u])-1]
	if now >= r.effective {
		return nil, 0, false
	}
	return r.to, r.effective, true
}

// Settled reports whether every change has taken effect for every unit at instant now,
// so the history can be replaced by FixedZone(z.Location()).
func (z *Zone) Settled(now int64) bool {
	for _, u := range calendarUnits {
		if _, _, ok := z.Pending(u, now); ok {
			return false
		}
	}
	return true
}

var calendarUnits = [...]Unit{Day, Week, Month}

// record is one change of zone as it applies to one unit: the window [start, end) it
// found in the zone before it, and effective, the instant the new zone takes over.
type record struct {
	to         *time.Location
	start, end int64
	effective  int64
}

// replay applies the changes to unit u and returns one record per change that took
// effect, oldest first; a change that replaced a pending one updates its record.
func replay(u Unit, base *time.Location, changes []ZoneChange) []record {
	var recs []record
	from := base
	for _, c := range changes {
		if n := len(recs); n > 0 && c.At < recs[n-1].effective {
			// A further change before the pending one took effect replaces it. The
			// window it extends keeps its start and never ends before the change itself.
			r := &recs[n-1]
			r.to = c.Loc
			r.effective = firstBoundary(u, c.Loc, max(r.end, c.At))
			continue
		}
		if n := len(recs); n > 0 {
			from = recs[n-1].to
		}
		start, end := calendarWindow(u, from, c.At)
		recs = append(recs, record{to: c.Loc, start: start, end: end, effective: firstBoundary(u, c.Loc, end)})
	}
	return recs
}

// firstBoundary returns the first window boundary of unit u in loc at or after t.
func firstBoundary(u Unit, loc *time.Location, t int64) int64 {
	start, end := calendarWindow(u, loc, t)
	if start == t {
		return t
	}
	return end
}

// calendarWindow returns the window [start, end) of unit u in loc that contains t.
func calendarWindow(u Unit, loc *time.Location, t int64) (start, end int64) {
	local := time.UnixMicro(t).In(loc)
	y, m, d := local.Date()
	switch u {
	case Week:
		d -= (int(local.Weekday()) + 6) % 7 // back to Monday
		start, end = dateStart(y, m, d, loc), dateStart(y, m, d+7, loc)
	case Month:
		start, end = dateStart(y, m, 1, loc), dateStart(y, m+1, 1, loc)
	default:
		start, end = dateStart(y, m, d, loc), dateStart(y, m, d+1, loc)
	}
	if t >= end {
		// Clocks fell back across midnight: t shows the previous date although the next
		// one has already begun.
		return calendarWindow(u, loc, end)
	}
	return start, end
}

// dateStart returns the first instant, in microseconds, whose local date in loc is
// y-m-d (normalised, so day 0 or 32 are accepted). time.Date does not guarantee which
// instant it picks when midnight is skipped or repeated, so both cases are corrected.
func dateStart(y int, m time.Month, d int, loc *time.Location) int64 {
	naive := time.Date(y, m, d, 0, 0, 0, 0, time.UTC) // the local midnight, read as UTC
	y, m, d = naive.Date()
	c := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if cy, cm, cd := c.Date(); cy != y || cm != m || cd != d {
		// Midnight was skipped: the date begins where the gap ends.
		if _, gapEnd := c.ZoneBounds(); !gapEnd.IsZero() {
			c = gapEnd
		}
	}
	// When clocks fell back onto this date, an earlier instant already carried it.
	if periodStart, _ := c.ZoneBounds(); !periodStart.IsZero() {
		before := periodStart.Add(-time.Microsecond)
		if by, bm, bd := before.Date(); by == y && bm == m && bd == d {
			_, offset := before.Zone()
			c = time.Unix(naive.Unix()-int64(offset), 0)
		}
	}
	return c.UnixMicro()
}

// Base returns the zone in force before the first change.
func (z *Zone) Base() *time.Location {
	if z == nil {
		return time.UTC
	}
	return z.base
}

// Changes returns a copy of the changes of zone, oldest first.
func (z *Zone) Changes() []ZoneChange {
	if z == nil {
		return nil
	}
	return append([]ZoneChange(nil), z.changes...)
}
