package limiter

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Unit is a calendar unit: a period that follows local time in a Zone rather than a
// fixed number of microseconds. The zero Unit means "not a calendar period".
type Unit uint8

// The calendar units. A local day starts at the first instant that carries its date
// (23 or 25 hours on DST days); a week starts on Monday, a month on the 1st.
const (
	NoUnit Unit = iota
	Day
	Week
	Month
)

var unitNames = [...]string{NoUnit: "", Day: "day", Week: "week", Month: "month"}

// String returns "day", "week" or "month", or "" for NoUnit.
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}

// Period bounds for duration periods.
const (
	MinPeriod = time.Millisecond
	MaxPeriod = 31 * 24 * time.Hour
)

// Period is a rule's period: either a duration of whole microseconds between MinPeriod
// and MaxPeriod, or a calendar Unit. Its JSON form is a string: a Go duration ("100ms",
// "1m", "24h") or "day", "week", "month". The zero Period is invalid.
type Period struct {
	micros int64
	unit   Unit
}

// Every returns the duration period d. ParsePeriod validates; Every does not.
func Every(d time.Duration) Period { return Period{micros: d.Microseconds()} }

// Calendar returns the calendar period u.
func Calendar(u Unit) Period { return Period{unit: u} }

// ParsePeriod parses a period's text form.
func ParsePeriod(s string) (Period, error) {
	for _, u := range calendarUnits {
		if s == u.String() {
			return Calendar(u), nil
		}
	}
	if s == "" {
		return Period{}, fmt.Errorf("is empty: want a duration such as \"1s\" or \"1m\", or day, week, month")
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Period{}, fmt.Errorf("is not a duration (such as \"1s\", \"1m\", \"24h\") nor day, week, month")
	}
	switch {
	case d < MinPeriod:
		return Period{}, fmt.Errorf("is shorter than the minimum %v", MinPeriod)
	case d > MaxPeriod:
		return Period{}, fmt.Errorf("is longer than the maximum %v (31 days); use \"month\" for calendar months", MaxPeriod)
	case d%time.Microsecond != 0:
		return Period{}, fmt.Errorf("is not a whole number of microseconds")
	}
	return Every(d), nil
}

// Micros returns a duration period's length in microseconds, or 0 for a calendar period.
func (p Period) Micros() int64 { return p.micros }

// Unit returns a calendar period's unit, or NoUnit for a duration period.
func (p Period) Unit() Unit { return p.unit }

// IsCalendar reports whether p follows local time (day, week, month).
func (p Period) IsCalendar() bool { return p.unit != NoUnit }

// IsZero reports whether p is the zero (unset) Period.
func (p Period) IsZero() bool { return p.micros == 0 && p.unit == NoUnit }

// String returns the canonical text form: "day", "1m", "1h30m", "100ms".
func (p Period) String() string {
	if p.unit != NoUnit {
		return p.unit.String()
	}
	s := (time.Duration(p.micros) * time.Microsecond).String()
	// time.Duration writes "1h0m0s"; drop the zero tails to get "1h".
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalJSON writes the period as its text form.
func (p Period) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// UnmarshalJSON reads a period from a JSON string.
func (p *Period) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("must be a string such as \"1m\" or \"day\"")
	}
	q, err := ParsePeriod(s)
	if err != nil {
		return fmt.Errorf("%q %w", s, err)
	}
	*p = q
	return nil
}
