package tenant

import (
	"errors"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// at parses an RFC 3339 instant into microseconds.
func at(t testing.TB, s string) int64 {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts.UnixMicro()
}

func rfc(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339) }

func dailyTenant(zone string) Tenant {
	return Tenant{ID: "acme", Timezone: zone, Version: 4, Generation: 2,
		Rules: []limiter.Rule{{Algorithm: limiter.FixedWindow, Limit: 100, Period: limiter.Calendar(limiter.Day)}}}.Normalized()
}

func withZone(t Tenant, zone string) Tenant {
	t = t.Clone()
	t.Timezone = zone
	return t
}

// mustUpdate applies ApplyUpdate and fails the test on error.
func mustUpdate(t *testing.T, old Tenant, zone string, now int64) Tenant {
	t.Helper()
	got, err := ApplyUpdate(old, withZone(old, zone), now)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestZoneChangeMidDay(t *testing.T) {
	tests := []struct {
		name, from, to, now  string
		wantStart, wantUntil string // the extended day window, UTC
	}{
		{"east: UTC to Tokyo", "UTC", "Asia/Tokyo", "2026-06-10T12:00:00Z", "2026-06-10T00:00:00Z", "2026-06-11T15:00:00Z"},
		{"west: UTC to Los Angeles", "UTC", "America/Los_Angeles", "2026-06-10T12:00:00Z", "2026-06-10T00:00:00Z", "2026-06-11T07:00:00Z"},
		{"west to east: Los Angeles to Tokyo", "America/Los_Angeles", "Asia/Tokyo", "2026-06-10T12:00:00Z", "2026-06-10T07:00:00Z", "2026-06-11T15:00:00Z"},
		{"east to west: Tokyo to Los Angeles", "Asia/Tokyo", "America/Los_Angeles", "2026-06-10T12:00:00Z", "2026-06-09T15:00:00Z", "2026-06-11T07:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := at(t, tt.now)
			got := mustUpdate(t, dailyTenant(tt.from), tt.to, now)
			want := []ZoneChange{{At: now, From: tt.from, To: tt.to}}
			if len(got.ZoneChanges) != 1 || got.ZoneChanges[0] != want[0] {
				t.Fatalf("ZoneChanges = %+v, want %+v", got.ZoneChanges, want)
			}
			if got.Timezone != tt.to || got.Version != 4 || got.Generation != 2 {
				t.Errorf("timezone %q version %d generation %d", got.Timezone, got.Version, got.Generation)
			}
			zone, effective, ok := got.PendingZone(limiter.Day, now)
			if !ok || zone != tt.to || rfc(effective) != tt.wantUntil {
				t.Errorf("PendingZone = %q, %s, %v; want %q, %s", zone, rfc(effective), ok, tt.to, tt.wantUntil)
			}
			z, err := got.Zone()
			if err != nil {
				t.Fatal(err)
			}
			start, end := z.Window(limiter.Day, now)
			if rfc(start) != tt.wantStart || rfc(end) != tt.wantUntil {
				t.Errorf("day window [%s, %s), want [%s, %s): one quota until the new zone's midnight", rfc(start), rfc(end), tt.wantStart, tt.wantUntil)
			}
		})
	}
}

func TestZoneChangeReplacesPending(t *testing.T) {
	first := at(t, "2026-06-10T12:00:00Z")
	second := at(t, "2026-06-10T18:00:00Z") // before Tokyo's midnight at 2026-06-11T15:00Z
	got := mustUpdate(t, mustUpdate(t, dailyTenant("UTC"), "Asia/Tokyo", first), "America/Los_Angeles", second)
	if len(got.ZoneChanges) != 2 {
		t.Fatalf("ZoneChanges = %+v, want both changes kept until they take effect", got.ZoneChanges)
	}
	zone, effective, ok := got.PendingZone(limiter.Day, second)
	if !ok || zone != "America/Los_Angeles" || rfc(effective) != "2026-06-11T07:00:00Z" {
		t.Errorf("PendingZone = %q, %s, %v; want Los Angeles from its first midnight after the UTC day", zone, rfc(effective), ok)
	}
	z, _ := got.Zone()
	// Tokyo's midnight never becomes a boundary: the replaced change never takes effect.
	if start, end := z.Window(limiter.Day, at(t, "2026-06-11T10:00:00Z")); rfc(start) != "2026-06-11T07:00:00Z" || rfc(end) != "2026-06-12T07:00:00Z" {
		t.Errorf("next day [%s, %s), want the Los Angeles day", rfc(start), rfc(end))
	}
}

func TestZoneChangesCompact(t *testing.T) {
	changed := mustUpdate(t, dailyTenant("UTC"), "Asia/Tokyo", at(t, "2026-06-10T12:00:00Z"))
	tests := []struct {
		name, zone, now string
		want            []ZoneChange
	}{
		// The month window [June 1, July 1) UTC extends to Tokyo's August 1.
		{"pending for the month: kept", "Asia/Tokyo", "2026-07-15T00:00:00Z", changed.ZoneChanges},
		{"settled for every unit: dropped", "Asia/Tokyo", "2026-08-01T00:00:00Z", nil},
		{"settled before the next change: only the new one kept", "Europe/Paris", "2026-08-05T00:00:00Z",
			[]ZoneChange{{At: at(t, "2026-08-05T00:00:00Z"), From: "Asia/Tokyo", To: "Europe/Paris"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := withZone(changed, tt.zone)
			next.Metadata = map[string]string{"plan": "pro"}
			got, err := ApplyUpdate(changed, next, at(t, tt.now))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.ZoneChanges) != len(tt.want) || (len(tt.want) > 0 && got.ZoneChanges[0] != tt.want[0]) {
				t.Errorf("ZoneChanges = %+v, want %+v", got.ZoneChanges, tt.want)
			}
		})
	}
}

func TestZoneChangeBounded(t *testing.T) {
	cur := dailyTenant("UTC")
	now := at(t, "2026-06-10T12:00:00Z")
	zones := []string{"Asia/Tokyo", "Europe/Paris"}
	for i := range MaxZoneChanges {
		cur = mustUpdate(t, cur, zones[i%2], now+int64(i))
	}
	_, err := ApplyUpdate(cur, withZone(cur, "UTC"), now+MaxZoneChanges)
	var fe *limiter.FieldError
	if !errors.As(err, &fe) || fe.Field != "timezone" {
		t.Fatalf("change %d: %v, want a timezone FieldError", MaxZoneChanges+1, err)
	}
}

func TestApplyUpdate(t *testing.T) {
	old := dailyTenant("UTC")
	now := at(t, "2026-06-10T12:00:00Z")
	t.Run("server-managed fields come from the stored tenant", func(t *testing.T) {
		next := old.Clone()
		next.Version, next.Generation = 99, 99
		next.ZoneChanges = []ZoneChange{{At: 1, From: "Asia/Tokyo", To: "UTC"}}
		got, err := ApplyUpdate(old, next, now)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != 4 || got.Generation != 2 || got.ZoneChanges != nil {
			t.Errorf("got version %d generation %d changes %+v", got.Version, got.Generation, got.ZoneChanges)
		}
	})
	t.Run("the id cannot change", func(t *testing.T) {
		next := old.Clone()
		next.ID = "other"
		var fe *limiter.FieldError
		if _, err := ApplyUpdate(old, next, now); !errors.As(err, &fe) || fe.Field != "id" {
			t.Errorf("got %v, want an id FieldError", err)
		}
	})
	t.Run("an invalid update is rejected", func(t *testing.T) {
		next := old.Clone()
		next.Rules[0].Limit = 0
		var fe *limiter.FieldError
		if _, err := ApplyUpdate(old, next, now); !errors.As(err, &fe) || fe.Field != "rules[0].limit" {
			t.Errorf("got %v, want a rules[0].limit FieldError", err)
		}
		if old.Rules[0].Limit != 100 {
			t.Error("ApplyUpdate changed the stored tenant")
		}
	})
	t.Run("a clock behind the last change records at that change", func(t *testing.T) {
		first := mustUpdate(t, old, "Asia/Tokyo", now)
		got := mustUpdate(t, first, "Europe/Paris", now-1000)
		if got.ZoneChanges[1].At != now {
			t.Errorf("second change at %d, want %d", got.ZoneChanges[1].At, now)
		}
	})
	t.Run("reset and create", func(t *testing.T) {
		if got := Reset(old); got.Generation != 3 || old.Generation != 2 {
			t.Errorf("Reset: generation %d (old %d)", got.Generation, old.Generation)
		}
		created := ApplyCreate(mustUpdate(t, old, "Asia/Tokyo", now))
		if created.Version != 0 || created.Generation != 0 || created.ZoneChanges != nil || created.Timezone != "Asia/Tokyo" {
			t.Errorf("ApplyCreate: %+v", created)
		}
	})
}
