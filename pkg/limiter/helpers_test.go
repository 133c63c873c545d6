package limiter

import (
	"testing"
	"time"
)

// t0 is a second-, minute- and hour-aligned instant used by the table tests.
var t0 = Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))

// us converts a duration to microseconds.
func us(d time.Duration) int64 { return d.Microseconds() }

// step is one request of a table test and what it must get.
type step struct {
	name      string
	at        time.Duration // since t0
	cost      int64         // 0 means 1
	allowed   bool
	remaining int64
	retry     time.Duration // RetryAfter when denied
	delay     time.Duration // leaky bucket Delay when allowed
}

func mustSet(tb testing.TB, zone *Zone, rules ...string) *Set {
	tb.Helper()
	parsed := make([]Rule, len(rules))
	for i, js := range rules {
		r, err := ParseRule([]byte(js))
		if err != nil {
			tb.Fatalf("ParseRule(%s): %v", js, err)
		}
		parsed[i] = r
	}
	s, err := NewSet(parsed, zone)
	if err != nil {
		tb.Fatalf("NewSet: %v", err)
	}
	return s
}

// runSteps decides every step in order on one key and checks each Decision.
func runSteps(t *testing.T, s *Set, steps []step) {
	t.Helper()
	states := s.NewStates()
	for i, st := range steps {
		cost := max(st.cost, 1)
		d, err := s.Decide(states, t0+us(st.at), cost)
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, st.name, err)
		}
		if d.Allowed != st.allowed || d.Remaining != st.remaining {
			t.Errorf("step %d (%s) at %v cost %d: allowed=%v remaining=%d, want allowed=%v remaining=%d",
				i, st.name, st.at, cost, d.Allowed, d.Remaining, st.allowed, st.remaining)
		}
		if want := us(st.retry); !d.Allowed && d.RetryAfter != want {
			t.Errorf("step %d (%s): retry after %v, want %v", i, st.name, time.Duration(d.RetryAfter)*time.Microsecond, st.retry)
		}
		if d.Allowed && d.RetryAfter != 0 {
			t.Errorf("step %d (%s): allowed with retry after %d", i, st.name, d.RetryAfter)
		}
		if want := us(st.delay); d.Delay != want {
			t.Errorf("step %d (%s): delay %v, want %v", i, st.name, time.Duration(d.Delay)*time.Microsecond, st.delay)
		}
	}
}

// cloneStates deep-copies states, including sliding logs.
func cloneStates(in []State) []State {
	out := make([]State, len(in))
	for i, s := range in {
		out[i] = s
		out[i].Log = Log{}
		for _, e := range s.Log.Entries() {
			out[i].Log.Push(e.At, e.Cost)
		}
	}
	return out
}

func mustLoad(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}
