package admin_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestDailyWindows spends a daily quota through the gate with injected time and reads
// it back through usage: the day is the tenant's local day (23 and 25 hours long
// across Los Angeles' DST changes), usage names its end in UTC and local time, the
// quota holds until the last microsecond of the day and is whole again at midnight.
func TestDailyWindows(t *testing.T) {
	tests := []struct {
		name, zone string
		at         time.Time // an instant of the day, late in it
		start, end time.Time // the local day, in UTC
		endLocal   string
	}{
		{"Kolkata", "Asia/Kolkata", utc("2026-01-10T17:30:00Z"), utc("2026-01-09T18:30:00Z"), utc("2026-01-10T18:30:00Z"), "2026-01-11T00:00:00+05:30"},
		{"Los Angeles, DST starts (23h)", "America/Los_Angeles", utc("2026-03-08T09:30:00Z"), utc("2026-03-08T08:00:00Z"), utc("2026-03-09T07:00:00Z"), "2026-03-09T00:00:00-07:00"},
		{"Los Angeles, DST ends (25h)", "America/Los_Angeles", utc("2026-11-01T08:30:00Z"), utc("2026-11-01T07:00:00Z"), utc("2026-11-02T08:00:00Z"), "2026-11-02T00:00:00-08:00"},
		{"Kiritimati", "Pacific/Kiritimati", utc("2026-01-10T09:00:00Z"), utc("2026-01-09T10:00:00Z"), utc("2026-01-10T10:00:00Z"), "2026-01-11T00:00:00+14:00"},
	}
	const limit = 3
	forEachBackend(t, func(t *testing.T, e *env) {
		g := e.gate(-1, "")
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				id := fmt.Sprintf("day%d", i)
				e.create(id, fmt.Sprintf(`{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": %d, "period": "day"}], "timezone": %q}`, limit, tt.zone))
				raw, keyID := e.issueKey(id)
				e.clock.Set(tt.at)
				for n := range limit + 1 {
					if res := e.check(g, raw, "GET", "/"); res.Decision.Allowed != (n < limit) {
						t.Fatalf("request %d: allowed %v", n+1, res.Decision.Allowed)
					}
				}
				r := e.usage(id, keyID).Rules[0]
				if r.Used != limit || r.Remaining != 0 || r.WindowStart != rfc3339(tt.start) || r.WindowEnd != rfc3339(tt.end) ||
					r.Reset != rfc3339(tt.end) || r.ResetLocal != tt.endLocal {
					t.Fatalf("usage %+v", r)
				}
				e.clock.Set(tt.end.Add(-time.Microsecond))
				if res := e.check(g, raw, "GET", "/"); res.Decision.Allowed {
					t.Fatal("allowed in the last microsecond of the day")
				}
				e.clock.Set(tt.end)
				if r := e.usage(id, keyID).Rules[0]; r.Used != 0 || r.Remaining != limit || r.WindowStart != rfc3339(tt.end) {
					t.Fatalf("usage at local midnight %+v", r)
				}
				for n := range limit + 1 {
					if res := e.check(g, raw, "GET", "/"); res.Decision.Allowed != (n < limit) {
						t.Fatalf("the next day, request %d: allowed %v", n+1, res.Decision.Allowed)
					}
				}
			})
		}
	})
}

// zoneChange is a change of time zone at local noon in from, with the day it falls in
// (in from) and M, the first midnight of to at or after that day's end.
type zoneChange struct {
	name, from, to string
	at             time.Time
	start, end     time.Time
	effective      time.Time
	effectiveLocal string
}

// TestZoneChangeMidDay changes a tenant's time zone in the middle of its day, with
// part of the daily quota spent, westwards and eastwards: the window runs on from the
// old zone's midnight to the first midnight of the new zone at or after the old day's
// end, under one quota. usage shows when the change takes effect, for each calendar
// unit. Across that window the gate admits exactly the daily limit, never a second
// quota, and a whole quota again from the new zone's midnight.
func TestZoneChangeMidDay(t *testing.T) {
	tests := []zoneChange{
		{"Kolkata to Los Angeles (west)", "Asia/Kolkata", "America/Los_Angeles", utc("2026-01-10T06:30:00Z"),
			utc("2026-01-09T18:30:00Z"), utc("2026-01-10T18:30:00Z"), utc("2026-01-11T08:00:00Z"), "2026-01-11T00:00:00-08:00"},
		{"Los Angeles to Kolkata (east)", "America/Los_Angeles", "Asia/Kolkata", utc("2026-01-10T20:00:00Z"),
			utc("2026-01-10T08:00:00Z"), utc("2026-01-11T08:00:00Z"), utc("2026-01-11T18:30:00Z"), "2026-01-12T00:00:00+05:30"},
		{"Kiritimati to Los Angeles (46h window)", "Pacific/Kiritimati", "America/Los_Angeles", utc("2026-01-09T22:00:00Z"),
			utc("2026-01-09T10:00:00Z"), utc("2026-01-10T10:00:00Z"), utc("2026-01-11T08:00:00Z"), "2026-01-11T00:00:00-08:00"},
		{"Los Angeles on its 23h day to Kiritimati", "America/Los_Angeles", "Pacific/Kiritimati", utc("2026-03-08T19:00:00Z"),
			utc("2026-03-08T08:00:00Z"), utc("2026-03-09T07:00:00Z"), utc("2026-03-09T10:00:00Z"), "2026-03-10T00:00:00+14:00"},
	}
	forEachBackend(t, func(t *testing.T, e *env) {
		g := e.gate(-1, "")
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) { testZoneChange(t, e, g, fmt.Sprintf("zone%d", i), tt) })
		}
	})
}

func testZoneChange(t *testing.T, e *env, g *gate.Gate, id string, tt zoneChange) {
	const limit = 4
	e.clock.Set(tt.start.Add(time.Hour))
	e.create(id, fmt.Sprintf(`{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": %d, "period": "day"},
		{"name": "monthly", "algorithm": "fixed_window", "limit": 1000, "period": "month"}], "timezone": %q}`, limit, tt.from))
	raw, keyID := e.issueKey(id)
	allowed := spend(t, e, g, raw, 2) // before the change
	e.clock.Set(tt.at)
	e.do("PATCH", "/tenants/"+id, fmt.Sprintf(`{"timezone": %q}`, tt.to), "Content-Type", patchType, "If-Match", `"1"`).want(t, 200)
	checkPendingDay(t, e.usage(id, keyID), tt)

	// From the change to the last microsecond before M, in steps and around the old
	// day's end: only what was left of the one quota.
	instants := []time.Time{tt.end.Add(-time.Microsecond), tt.end, tt.end.Add(time.Microsecond), tt.effective.Add(-time.Microsecond)}
	for at := tt.at; at.Before(tt.effective); at = at.Add(90 * time.Minute) {
		instants = append(instants, at)
	}
	for _, at := range sorted(instants) {
		e.clock.Set(at)
		allowed += spend(t, e, g, raw, limit+1)
	}
	if allowed != limit {
		t.Fatalf("%d requests allowed from %s to %s, want one quota of %d", allowed, tt.start, tt.effective, limit)
	}
	e.clock.Set(tt.effective)
	u := e.usage(id, keyID)
	if len(u.Pending) != 1 || u.Pending[0].Unit != "month" { // the month's change is still pending
		t.Fatalf("pending at M: %+v", u.Pending)
	}
	if d := u.Rules[u.rule(t, "", "daily")]; d.Used != 0 || d.WindowStart != rfc3339(tt.effective) {
		t.Fatalf("daily usage at M %+v", d)
	}
	if n := spend(t, e, g, raw, limit+1); n != limit {
		t.Fatalf("%d allowed at M, want a whole quota of %d", n, limit)
	}
}

// checkPendingDay checks what usage says right after the change: the day's change
// pending until M, and the daily window extended to M under its one quota.
func checkPendingDay(t *testing.T, u usageBody, tt zoneChange) {
	t.Helper()
	if len(u.Pending) != 2 || u.Pending[0].Unit != "day" || u.Pending[0].Timezone != tt.to ||
		u.Pending[0].Effective != rfc3339(tt.effective) || u.Pending[0].EffectiveLocal != tt.effectiveLocal || u.Pending[1].Unit != "month" {
		t.Fatalf("pending changes %+v", u.Pending)
	}
	if u.Timezone != tt.to {
		t.Errorf("timezone %s", u.Timezone)
	}
	d := u.Rules[u.rule(t, "", "daily")]
	if d.WindowStart != rfc3339(tt.start) || d.WindowEnd != rfc3339(tt.effective) || d.Reset != rfc3339(tt.effective) ||
		d.ResetLocal != tt.effectiveLocal || d.Used != 2 {
		t.Fatalf("daily usage %+v", d)
	}
}

// spend sends up to n requests at the current instant and returns how many were
// allowed, stopping at the first denial.
func spend(t *testing.T, e *env, g *gate.Gate, raw string, n int) int {
	t.Helper()
	allowed := 0
	for range n {
		if !e.check(g, raw, "GET", "/").Decision.Allowed {
			break
		}
		allowed++
	}
	return allowed
}

func sorted(ts []time.Time) []time.Time {
	out := slices.Clone(ts)
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// TestSecondZoneChange changes the zone twice, by PATCH and by PUT of an edited GET
// body: the server-managed zone history in the bodies must not stand in the way
// (regression: the stored history failed validation against the new zone).
func TestSecondZoneChange(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme) // Asia/Tokyo
		e.do("PATCH", "/tenants/acme", `{"timezone": "Europe/Paris"}`, "Content-Type", patchType, "If-Match", `"1"`).want(t, 200)
		e.clock.Advance(time.Hour)
		r := e.do("PATCH", "/tenants/acme", `{"timezone": "Asia/Kolkata"}`, "Content-Type", patchType, "If-Match", `"2"`).want(t, 200)
		if tn := r.tenant(t); tn.Timezone != "Asia/Kolkata" || len(tn.ZoneChanges) != 2 || tn.ZoneChanges[1].From != "Europe/Paris" {
			t.Fatalf("after two patches %+v", tn)
		}
		body := strings.Replace(string(r.body), `"timezone":"Asia/Kolkata"`, `"timezone":"America/Los_Angeles"`, 1)
		r = e.do("PUT", "/tenants/acme", body, "If-Match", `"3"`).want(t, 200)
		tn := r.tenant(t)
		if tn.Timezone != "America/Los_Angeles" || len(tn.ZoneChanges) != 3 || tn.ZoneChanges[2].To != "America/Los_Angeles" {
			t.Fatalf("after the PUT %+v", tn)
		}
		// The history in a body is the server's to keep: a forged one is ignored.
		var doc map[string]any
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		doc["generation"], doc["zone_changes"] = 7, []any{}
		forged, _ := json.Marshal(doc)
		if tn := e.do("PUT", "/tenants/acme", string(forged), "If-Match", `"4"`).want(t, 200).tenant(t); len(tn.ZoneChanges) != 3 || tn.Generation != 0 {
			t.Fatalf("a forged history was taken: %+v", tn)
		}
	})
}
