package limiter

import (
	"math/rand/v2"
	"testing"
	"time"
)

func utcAt(d, h int) int64 { return Micros(time.Date(2026, 11, d, h, 0, 0, 0, time.UTC)) }

func TestZoneChange(t *testing.T) {
	tokyo, la := mustLoad(t, "Asia/Tokyo"), mustLoad(t, "America/Los_Angeles")
	tests := []struct {
		name      string
		base      *time.Location
		changes   []ZoneChange
		at        int64
		wantStart int64
		wantEnd   int64
	}{
		{"to a zone ahead, mid-day: extended to the first Tokyo midnight after UTC midnight",
			time.UTC, []ZoneChange{{utcAt(10, 12), tokyo}}, utcAt(10, 20), utcAt(10, 0), utcAt(11, 15)},
		{"after it took effect: Tokyo days",
			time.UTC, []ZoneChange{{utcAt(10, 12), tokyo}}, utcAt(11, 16), utcAt(11, 15), utcAt(12, 15)},
		{"before the change: UTC days, untouched",
			time.UTC, []ZoneChange{{utcAt(10, 12), tokyo}}, utcAt(9, 12), utcAt(9, 0), utcAt(10, 0)},
		{"to a zone behind, mid-day: Tokyo's day extended to the next LA midnight",
			tokyo, []ZoneChange{{utcAt(10, 3), la}}, utcAt(10, 20), utcAt(9, 15), utcAt(11, 8)},
		{"a second change before the first took effect replaces it",
			time.UTC, []ZoneChange{{utcAt(10, 12), tokyo}, {utcAt(10, 20), la}}, utcAt(10, 21), utcAt(10, 0), utcAt(11, 8)},
		{"changing back before the window ended: the original window, not shorter",
			time.UTC, []ZoneChange{{utcAt(10, 12), tokyo}, {utcAt(10, 13), time.UTC}}, utcAt(10, 14), utcAt(10, 0), utcAt(11, 0)},
		{"a replacement after the old window ended never ends before the change",
			time.UTC, []ZoneChange{{utcAt(10, 12), tokyo}, {utcAt(11, 10), la}}, utcAt(11, 10), utcAt(10, 0), utcAt(12, 8)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, err := NewZone(tt.base, tt.changes...)
			if err != nil {
				t.Fatal(err)
			}
			start, end := z.Window(Day, tt.at)
			if start != tt.wantStart || end != tt.wantEnd {
				t.Errorf("window [%v, %v), want [%v, %v)", Time(start), Time(end), Time(tt.wantStart), Time(tt.wantEnd))
			}
		})
	}
}

// TestZoneChangeOneQuota spends a daily quota, changes zone mid-day in each direction,
// and checks that no second quota is granted before the change takes effect.
func TestZoneChangeOneQuota(t *testing.T) {
	tokyo, la := mustLoad(t, "Asia/Tokyo"), mustLoad(t, "America/Los_Angeles")
	const rule = `{"name": "daily", "algorithm": "fixed_window", "limit": 3, "period": "day"}`
	for _, tt := range []struct {
		name      string
		from, to  *time.Location
		spendAt   int64 // the quota is spent here, in the old zone
		changeAt  int64
		effective int64 // M
	}{
		{"UTC to Tokyo (ahead)", time.UTC, tokyo, utcAt(10, 1), utcAt(10, 12), utcAt(11, 15)},
		{"Tokyo to Los Angeles (behind)", tokyo, la, utcAt(9, 16), utcAt(10, 3), utcAt(11, 8)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := mustSet(t, FixedZone(tt.from), rule)
			states := before.NewStates()
			for range 3 {
				if d, _ := before.Decide(states, tt.spendAt, 1); !d.Allowed {
					t.Fatal("spending the quota: denied")
				}
			}
			z, _ := NewZone(tt.from, ZoneChange{At: tt.changeAt, Loc: tt.to})
			after := mustSet(t, z, rule)
			if to, eff, ok := z.Pending(Day, tt.changeAt); !ok || to != tt.to || eff != tt.effective {
				t.Fatalf("Pending = %v %v %v, want %v at %v", to, Time(eff), ok, tt.to, Time(tt.effective))
			}
			// Every hour until the change takes effect: denied, with retry at M.
			for at := tt.changeAt; at < tt.effective; at += us(time.Hour) {
				d, _ := after.Decide(states, at, 1)
				if d.Allowed || at+d.RetryAfter != tt.effective {
					t.Fatalf("at %v: allowed=%v retry at %v, want denied until %v", Time(at), d.Allowed, Time(at+d.RetryAfter), Time(tt.effective))
				}
			}
			if d, _ := after.Decide(states, tt.effective, 1); !d.Allowed || d.Remaining != 2 {
				t.Fatalf("at M: %+v, want a fresh quota", d)
			}
		})
	}
}

// TestZoneChangesRandom applies random sequences of zone changes and checks, for every
// unit and after every change: windows that ended before the change are untouched, the
// window current at the change keeps its start (its quota) and ends after the change,
// and windows still tile time with neither gap nor overlap.
func TestZoneChangesRandom(t *testing.T) {
	zones := []*time.Location{time.UTC, mustLoad(t, "Asia/Tokyo"), mustLoad(t, "America/Los_Angeles"),
		mustLoad(t, "Pacific/Kiritimati"), mustLoad(t, "Etc/GMT+12"), mustLoad(t, "Asia/Kolkata"), mustLoad(t, "Europe/London")}
	begin := Micros(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		var changes []ZoneChange
		at := begin + rng.Int64N(us(40*24*time.Hour))
		prev, _ := NewZone(zones[rng.IntN(len(zones))])
		for range 1 + rng.IntN(4) {
			at += rng.Int64N(us(3 * 24 * time.Hour))
			changes = append(changes, ZoneChange{At: at, Loc: zones[rng.IntN(len(zones))]})
			next, err := NewZone(prev.base, changes...)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range []Unit{Day, Week, Month} {
				checkChange(t, seed, u, prev, next, at, begin)
			}
			prev = next
		}
	}
}

func checkChange(t *testing.T, seed uint64, u Unit, prev, next *Zone, change, begin int64) {
	t.Helper()
	oldStart, _ := prev.Window(u, change)
	newStart, newEnd := next.Window(u, change)
	if newStart != oldStart || newEnd <= change {
		t.Fatalf("seed %d %v: at the change the window became [%v, %v), was starting %v", seed, u, Time(newStart), Time(newEnd), Time(oldStart))
	}
	// Walk windows from well before the change to well after it.
	start, end := next.Window(u, begin)
	for start < change+us(100*24*time.Hour) {
		if end <= start {
			t.Fatalf("seed %d %v: empty window at %v", seed, u, Time(start))
		}
		if end <= change {
			if ps, pe := prev.Window(u, start); ps != start || pe != end {
				t.Fatalf("seed %d %v: past window [%v, %v) rewritten as [%v, %v)", seed, u, Time(ps), Time(pe), Time(start), Time(end))
			}
		}
		ns, ne := next.Window(u, end)
		if ns != end {
			t.Fatalf("seed %d %v: window after [%v, %v) starts at %v", seed, u, Time(start), Time(end), Time(ns))
		}
		start, end = ns, ne
	}
}
