package limiter

import (
	"strconv"
	"time"
)

// Concurrency leases. A concurrency rule {"algorithm": "concurrency", "limit": N,
// "lease": "60s"} admits a request while fewer than N requests hold a slot. Each
// allowed request takes one slot, whatever its cost, and holds it until it is settled
// (Set.Settle) or its lease expires, so a process that dies frees its slots at expiry.
//
// Slots are counted by expiry, quantized: a slot taken at instant at expires at
// SlotExpiry, the first multiple of lease/16 (rounded up to whole microseconds) at or
// after at+lease. A slot is thus freed between lease and lease+lease/16 after it was
// taken, and a rule's state holds at most 17 live entries (expiry, slots), in a Log
// whose entries are (At: expiry, Cost: slots), oldest first; Count is their total.
const (
	DefaultLease = time.Minute
	MinLease     = time.Second
	MaxLease     = 24 * time.Hour
	// LeaseQuanta is the number of expiry buckets a lease is divided into.
	LeaseQuanta = 16
)

func (r Rule) validateConcurrency() error {
	if err := checkCount("limit", r.Limit); err != nil {
		return err
	}
	switch {
	case !r.Period.IsZero():
		return &FieldError{Field: "period", Value: strconv.Quote(r.Period.String()), Reason: "does not apply to concurrency: a slot is held until settled or until its lease ends (\"lease\")"}
	case r.Burst != 0:
		return &FieldError{Field: "burst", Value: strconv.FormatInt(r.Burst, 10), Reason: "applies to token_bucket and leaky_bucket only"}
	case r.Anchor != AnchorEpoch:
		return &FieldError{Field: "anchor", Value: strconv.Quote(string(r.Anchor)), Reason: "applies to fixed_window only"}
	case r.Lease.IsCalendar():
		return &FieldError{Field: "lease", Value: strconv.Quote(r.Lease.String()), Reason: "must be a duration such as \"60s\""}
	}
	if l := time.Duration(r.Lease.Micros()) * time.Microsecond; !r.Lease.IsZero() && (l < MinLease || l > MaxLease) {
		return &FieldError{Field: "lease", Value: strconv.Quote(r.Lease.String()), Reason: "must be between 1s and 24h"}
	}
	return r.Scope.validate()
}

// SlotExpiry returns when a slot of concurrency rule i taken at instant at expires:
// the first multiple of the rule's quantum at or after at+lease. It is 0 for a rule
// of another algorithm.
func (s *Set) SlotExpiry(i int, at int64) int64 {
	c := &s.rules[i]
	if c.kind != kindConc {
		return 0
	}
	return c.slotExpiry(at)
}

// SlotQuantum returns the quantum of concurrency rule i's slot expiries (lease/16,
// rounded up to whole microseconds): every expiry is a multiple of it. It is 0 for a
// rule of another algorithm.
func (s *Set) SlotQuantum(i int) int64 {
	if c := &s.rules[i]; c.kind == kindConc {
		return c.q
	}
	return 0
}

func (c *compiled) slotExpiry(at int64) int64 {
	e := at + c.period
	if r := e % c.q; r != 0 {
		e += c.q - r
	}
	return e
}

// concLive returns the effective now (never before the latest instant that took a
// slot: the clock-skew rule), how many of the oldest entries have expired by then,
// their slots, and the slots still held.
func (c *compiled) concLive(st *State, now int64) (at int64, expired int, expiredSlots, held int64) {
	at = max(now, st.Last)
	l := &st.Log
	for expired < l.n && l.At(expired).At <= at {
		expiredSlots += l.At(expired).Cost
		expired++
	}
	return at, expired, expiredSlots, st.Count - expiredSlots
}

// concEvaluate allows a request iff fewer than limit slots are held. Remaining is the
// slots free; Reset is when every held slot has expired; a denial's RetryAfter is when
// the first held slot expires.
func (c *compiled) concEvaluate(st *State, now int64, peek bool) Outcome {
	at, expired, _, held := c.concLive(st, now)
	reset := at
	if st.Log.n > expired {
		reset = st.Log.At(st.Log.n - 1).At
	}
	if held < c.Limit {
		if peek {
			return Outcome{Allowed: true, Remaining: c.Limit - held, Reset: reset}
		}
		return Outcome{Allowed: true, Remaining: c.Limit - held - 1, Reset: max(reset, c.slotExpiry(at))}
	}
	retryAt := reset
	for i := expired; i < st.Log.n; i++ {
		if e := st.Log.At(i); e.Cost > 0 {
			retryAt = e.At
			break
		}
	}
	return Outcome{Remaining: max(c.Limit-held, 0), Reset: reset, RetryAfter: retryAt - now}
}

func (c *compiled) concConsume(st *State, now int64) {
	at, expired, expiredSlots, _ := c.concLive(st, now)
	st.Log.Drop(expired)
	st.Log.Push(c.slotExpiry(at), 1)
	st.Count += 1 - expiredSlots
	st.Last = at
}

// concRelease frees the slot a request took at instant at: one slot of the first live
// entry that expires at or after SlotExpiry(at) and holds one (a request whose clock
// was behind took its slot under a later expiry). Nothing when none is live.
func (c *compiled) concRelease(st *State, at, now int64) {
	_, expired, _, _ := c.concLive(st, now)
	e := c.slotExpiry(at)
	for i := expired; i < st.Log.n; i++ {
		if st.Log.At(i).At >= e && st.Log.At(i).Cost > 0 {
			st.Log.add(i, -1)
			st.Count--
			return
		}
	}
}
