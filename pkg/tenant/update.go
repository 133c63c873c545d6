package tenant

import (
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// ApplyCreate returns t ready to be created: normalized, with the server-managed fields
// cleared (stores set Version to 1 and a new CreationID; Generation starts at 0; there
// is no zone history). It does not validate: stores do.
func ApplyCreate(t Tenant) Tenant {
	t = t.Normalized()
	t.Version, t.Generation, t.CreationID, t.ZoneChanges = 0, 0, "", nil
	return t
}

// ApplyUpdate returns next, a client's new version of the stored tenant old (a PUT
// body, or a merge-patched one), ready to be stored with old.Version as the condition.
// It normalizes next, carries the server-managed Version, Generation, CreationID and
// ZoneChanges over from old (whatever next holds), records a change of time zone at now
// (microseconds) when next.Timezone differs from old's, drops the changes that have
// taken effect, and validates the result.
//
// A change is recorded at now, or at the previous change's instant if now is earlier
// (clocks of admin instances may differ), so the history stays in order. The errors are
// *limiter.FieldError: the id cannot change, and the time zone cannot change more than
// MaxZoneChanges times while earlier changes are still taking effect.
func ApplyUpdate(old, next Tenant, now int64) (Tenant, error) {
	old, next = old.Normalized(), next.Normalized()
	if next.ID != old.ID {
		return Tenant{}, &limiter.FieldError{Field: "id", Value: strconv.Quote(next.ID), Reason: fmt.Sprintf("cannot change: the tenant is %q", old.ID)}
	}
	next.Version, next.Generation, next.CreationID = old.Version, old.Generation, old.CreationID
	changes := old.ZoneChanges
	if next.Timezone != old.Timezone {
		at := now
		if n := len(changes); n > 0 {
			at = max(at, changes[n-1].At)
		}
		changes = append(changes, ZoneChange{At: at, From: old.Timezone, To: next.Timezone})
	}
	next.ZoneChanges = compactZoneChanges(changes, now)
	if len(next.ZoneChanges) > MaxZoneChanges {
		return Tenant{}, &limiter.FieldError{Field: "timezone", Value: strconv.Quote(next.Timezone),
			Reason: fmt.Sprintf("changed more than %d times while earlier changes are still taking effect: try again after the current month ends", MaxZoneChanges)}
	}
	if err := next.Validate(); err != nil {
		return Tenant{}, err
	}
	return next, nil
}

// Reset returns t with its generation bumped: every counter key of the tenant changes
// (see CounterKey), so every counter starts afresh, and none is scanned or deleted (the
// old ones expire). Store the result with Replace, conditioned on t.Version.
func Reset(t Tenant) Tenant {
	t = t.Clone()
	t.Generation++
	return t
}

// compactZoneChanges drops the longest prefix of changes that had taken effect, for
// every calendar unit, by the time the next change was made (or by now, for the whole
// history). What remains replays exactly as before from that instant on: the dropped
// changes' windows have all ended, and the first change kept starts from the zone they
// settled in. A history whose zones do not load is returned as it is (Validate reports
// it).
func compactZoneChanges(changes []ZoneChange, now int64) []ZoneChange {
	for k := len(changes) - 1; k >= 0; k-- {
		next := now
		if k+1 < len(changes) {
			next = changes[k+1].At
		}
		z, err := buildZone(changes[:k+1])
		if err != nil {
			return changes
		}
		if z.Settled(next) {
			return append([]ZoneChange(nil), changes[k+1:]...)
		}
	}
	return changes
}
