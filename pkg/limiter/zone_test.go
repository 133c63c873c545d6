package limiter

import (
	"testing"
	"time"
)

func TestCalendarDays(t *testing.T) {
	tests := []struct {
		name      string
		zone      string
		at        time.Time // in UTC
		wantStart string    // RFC 3339 in the zone
		wantLen   time.Duration
	}{
		{"New York spring forward: 23 hours", "America/New_York", time.Date(2026, 3, 8, 15, 0, 0, 0, time.UTC), "2026-03-08T00:00:00-05:00", 23 * time.Hour},
		{"New York fall back: 25 hours", "America/New_York", time.Date(2026, 11, 1, 15, 0, 0, 0, time.UTC), "2026-11-01T00:00:00-04:00", 25 * time.Hour},
		{"London spring forward: 23 hours", "Europe/London", time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC), "2026-03-29T00:00:00Z", 23 * time.Hour},
		{"London fall back: 25 hours", "Europe/London", time.Date(2026, 10, 25, 12, 0, 0, 0, time.UTC), "2026-10-25T00:00:00+01:00", 25 * time.Hour},
		{"UTC-12 starts at noon UTC", "Etc/GMT+12", time.Date(2026, 6, 1, 11, 59, 0, 0, time.UTC), "2026-05-31T00:00:00-12:00", 24 * time.Hour},
		{"UTC+14 starts at 10:00 UTC the day before", "Pacific/Kiritimati", time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC), "2026-06-02T00:00:00+14:00", 24 * time.Hour},
		{"Beirut skips midnight: the day starts at 01:00", "Asia/Beirut", time.Date(2026, 3, 29, 12, 0, 0, 0, time.UTC), "2026-03-29T01:00:00+03:00", 23 * time.Hour},
		{"Beirut: the day before ends where the gap starts", "Asia/Beirut", time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC), "2026-03-28T00:00:00+02:00", 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := mustLoad(t, tt.zone)
			start, end := FixedZone(loc).Window(Day, Micros(tt.at))
			if got := Time(start).In(loc).Format(time.RFC3339); got != tt.wantStart {
				t.Errorf("start %s, want %s", got, tt.wantStart)
			}
			if got := time.Duration(end-start) * time.Microsecond; got != tt.wantLen {
				t.Errorf("length %v, want %v", got, tt.wantLen)
			}
			if at := Micros(tt.at); at < start || at >= end {
				t.Errorf("window [%d, %d) does not contain %d", start, end, at)
			}
		})
	}
}

// TestDateStartIsFirstInstant checks, for every day of two years in zones with unusual
// transitions, that a day window starts at the first instant carrying its date and
// that consecutive windows tile time.
func TestDateStartIsFirstInstant(t *testing.T) {
	for _, name := range []string{"America/New_York", "Europe/London", "Asia/Beirut", "America/Santiago", "America/Havana", "Australia/Lord_Howe", "Pacific/Apia", "Asia/Kolkata"} {
		loc := mustLoad(t, name)
		z := FixedZone(loc)
		at := Micros(time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC))
		start, end := z.Window(Day, at)
		for range 730 {
			first := Time(start).In(loc)
			before := Time(start - 1).In(loc)
			if first.Format(time.DateOnly) == before.Format(time.DateOnly) {
				t.Fatalf("%s: window starts at %v but %v carries the same date", name, first, before)
			}
			nextStart, nextEnd := z.Window(Day, end)
			if nextStart != end {
				t.Fatalf("%s: window after [%v, %v) starts at %v", name, first, Time(end).In(loc), Time(nextStart).In(loc))
			}
			start, end = nextStart, nextEnd
		}
	}
}

func TestCalendarWeekAndMonth(t *testing.T) {
	tokyo := mustLoad(t, "Asia/Tokyo")
	z := FixedZone(tokyo)
	at := Micros(time.Date(2026, 2, 4, 12, 0, 0, 0, tokyo)) // a Wednesday
	start, end := z.Window(Week, at)
	if got, want := Time(start).In(tokyo).Format(time.RFC3339), "2026-02-02T00:00:00+09:00"; got != want {
		t.Errorf("week starts %s, want Monday %s", got, want)
	}
	if end-start != us(7*24*time.Hour) {
		t.Errorf("week length %v", time.Duration(end-start)*time.Microsecond)
	}
	start, end = z.Window(Month, at)
	if got, want := Time(start).In(tokyo).Format(time.RFC3339), "2026-02-01T00:00:00+09:00"; got != want {
		t.Errorf("month starts %s, want %s", got, want)
	}
	if end-start != us(28*24*time.Hour) {
		t.Errorf("February length %v", time.Duration(end-start)*time.Microsecond)
	}
}

func TestDailyQuotaResetsAtLocalMidnight(t *testing.T) {
	kolkata := mustLoad(t, "Asia/Kolkata")
	s := mustSet(t, FixedZone(kolkata), `{"name": "daily", "algorithm": "fixed_window", "limit": 2, "period": "day"}`)
	states := s.NewStates()
	at := Micros(time.Date(2026, 11, 30, 23, 0, 0, 0, kolkata))
	for i := range 2 {
		if d, _ := s.Decide(states, at, 1); !d.Allowed {
			t.Fatalf("request %d denied", i)
		}
	}
	d, _ := s.Decide(states, at, 1)
	if d.Allowed || d.RetryAfter != us(time.Hour) {
		t.Fatalf("3rd: allowed=%v retry %v, want denied until local midnight (1h)", d.Allowed, time.Duration(d.RetryAfter)*time.Microsecond)
	}
	if want := Micros(time.Date(2026, 12, 1, 0, 0, 0, 0, kolkata)); d.Reset != want {
		t.Fatalf("reset %v, want local midnight", Time(d.Reset))
	}
	if d, _ := s.Decide(states, at+us(time.Hour), 1); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after midnight: %+v, want allowed with 1 remaining", d)
	}
}
