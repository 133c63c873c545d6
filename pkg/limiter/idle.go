package limiter

import "strconv"

// CalendarGrace is how long past its end a calendar window's state must be kept
// (microseconds): a change of zone can extend a window to the new zone's next boundary,
// at most about a day later.
const CalendarGrace = 2 * 24 * 3600 * microsPerSecond

// StateID identifies the meaning of a rule's stored state: its name, algorithm and
// period, its anchor, and for buckets its limit (a TAT fraction is in units of
// 1/limit). A backend keeps a key's state across an edit of the rule set for every rule
// whose StateID is unchanged (raising a daily limit keeps the day's usage) and starts
// afresh for the others.
func (r Rule) StateID() string {
	r = r.Normalized()
	id := r.Name + ":" + string(r.Algorithm) + ":" + r.Period.String()
	if r.Anchor != AnchorEpoch {
		id += ":" + string(r.Anchor)
	}
	if r.IsBucket() {
		id += ":" + strconv.FormatInt(r.Limit, 10)
	}
	return id
}

// IdleAt returns the instant from which states are equivalent to a key never seen, so a
// backend may forget them (a TTL): every window has ended, every log entry has left,
// every bucket is full. It is 0 for states that hold nothing.
func (s *Set) IdleAt(states []State) int64 {
	var idle int64
	for i := range s.rules {
		idle = max(idle, s.rules[i].idleAt(&states[i]))
	}
	return idle
}

func (c *compiled) idleAt(st *State) int64 {
	switch c.Algorithm {
	case FixedWindow:
		if st.Count == 0 {
			return 0
		}
		if c.Period.IsCalendar() {
			return st.WindowEnd + CalendarGrace
		}
		return st.WindowEnd
	case SlidingWindow:
		if st.Count == 0 && st.Prev == 0 {
			return 0
		}
		return st.WindowStart + 2*c.period
	case SlidingLog:
		if st.Log.Len() == 0 {
			return 0
		}
		return st.Log.At(st.Log.Len()-1).At + c.period
	case Concurrency:
		if st.Log.Len() == 0 {
			return 0
		}
		return st.Log.At(st.Log.Len() - 1).At // the last slot's expiry
	}
	return ceilFrac(st.TAT, st.TATFrac)
}
