package tenant

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// ZoneChange records that at instant At (microseconds since the Unix epoch) the
// tenant's time zone changed from From to To. It is server-managed: ApplyUpdate
// appends one when an update changes the time zone.
type ZoneChange struct {
	At   int64  `json:"at"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Zone returns the limiter.Zone that the tenant's calendar rules follow: the zone
// before the first recorded change, followed by the changes still taking effect, or
// simply Timezone when there are none. The error is a *limiter.FieldError for a zone
// this binary cannot load (a tenant that passes Validate has none).
func (t Tenant) Zone() (*limiter.Zone, error) {
	if len(t.ZoneChanges) == 0 {
		loc, err := loadZone("timezone", cmp.Or(t.Timezone, DefaultTimezone))
		if err != nil {
			return nil, err
		}
		return limiter.FixedZone(loc), nil
	}
	return buildZone(t.ZoneChanges)
}

// buildZone returns the zone of a non-empty, validated history.
func buildZone(changes []ZoneChange) (*limiter.Zone, error) {
	base, err := loadZone("zone_changes[0].from", changes[0].From)
	if err != nil {
		return nil, err
	}
	zc := make([]limiter.ZoneChange, len(changes))
	for i, c := range changes {
		loc, err := loadZone(fmt.Sprintf("zone_changes[%d].to", i), c.To)
		if err != nil {
			return nil, err
		}
		zc[i] = limiter.ZoneChange{At: c.At, Loc: loc}
	}
	z, err := limiter.NewZone(base, zc...)
	if err != nil {
		return nil, &limiter.FieldError{Field: "zone_changes", Reason: err.Error()}
	}
	return z, nil
}

// PendingZone reports, for calendar unit u at instant now, a change of time zone that
// has not yet taken effect: the zone it changes to and the instant it takes effect (the
// current window of u runs until then in the old zone). ok is false when no change is
// pending, and for a tenant whose zones do not load (one that fails Validate).
func (t Tenant) PendingZone(u limiter.Unit, now int64) (zone string, effective int64, ok bool) {
	z, err := t.Zone()
	if err != nil {
		return "", 0, false
	}
	loc, effective, ok := z.Pending(u, now)
	if !ok {
		return "", 0, false
	}
	return loc.String(), effective, true
}

func (t Tenant) validateZoneChanges() error {
	changes := t.ZoneChanges
	if err := tooMany("zone_changes", len(changes), MaxZoneChanges, "holds at most %d changes"); err != nil {
		return err
	}
	for i, c := range changes {
		path := fmt.Sprintf("zone_changes[%d]", i)
		if err := c.validate(); err != nil {
			return prefixed(path, err)
		}
		if i > 0 && c.At < changes[i-1].At {
			return &limiter.FieldError{Field: path + ".at", Value: strconv.FormatInt(c.At, 10), Reason: "changes must be in order of time"}
		}
		if i > 0 && c.From != changes[i-1].To {
			return &limiter.FieldError{Field: path + ".from", Value: strconv.Quote(c.From), Reason: "must be the zone the previous change went to, " + strconv.Quote(changes[i-1].To)}
		}
	}
	if n := len(changes); n > 0 && changes[n-1].To != cmp.Or(t.Timezone, DefaultTimezone) {
		return &limiter.FieldError{Field: fmt.Sprintf("zone_changes[%d].to", n-1), Value: strconv.Quote(changes[n-1].To), Reason: "the last change must go to the tenant's timezone"}
	}
	return nil
}

func (c ZoneChange) validate() error {
	if c.At < 0 || c.At > limiter.MaxTime {
		return &limiter.FieldError{Field: "at", Value: strconv.FormatInt(c.At, 10), Reason: "must be microseconds since the Unix epoch, before 2200"}
	}
	if _, err := loadZone("from", c.From); err != nil {
		return err
	}
	if _, err := loadZone("to", c.To); err != nil {
		return err
	}
	if c.From == c.To {
		return &limiter.FieldError{Field: "to", Value: strconv.Quote(c.To), Reason: "is the zone it changes from"}
	}
	return nil
}
