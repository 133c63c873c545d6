package tenant

import (
	"math"
	"strconv"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// MaxOverrides bounds a tenant's temporary overrides, ended ones included.
const MaxOverrides = 16

// EverActive is the instant at which Effective applies every override of a tenant:
// the largest rule list it can compile, which CheckMerge checks.
const EverActive = math.MinInt64

// Override is a temporary change of a tenant's rules: its rules replace the tenant's
// (and its plan's) rules of the same name, and add to them otherwise, until the instant
// Until, and end by themselves there: at an instant now, an override applies when
// now < Until, so the decision at Until-1µs uses it and the decision at Until does not.
// Nothing has to remove an ended override; a later write of the tenant may.
//
// Its JSON is {"rules": [...], "until": "2026-12-24T00:00:00Z"} (RFC 3339).
type Override struct {
	Rules []limiter.Rule `json:"rules"`
	Until time.Time      `json:"until"`
}

// UntilMicros returns Until in microseconds since the Unix epoch, the clock of
// decisions.
func (o Override) UntilMicros() int64 { return limiter.Micros(o.Until) }

// Active reports whether o applies to a decision at now (microseconds).
func (o Override) Active(now int64) bool { return now < o.UntilMicros() }

// OverridesEnd returns the earliest Until of t's overrides active at now, or
// math.MaxInt64 when none is: the instant from which the rules Effective merges at
// now stop being the tenant's rules, so a cache of them must not answer from there.
func (t Tenant) OverridesEnd(now int64) int64 {
	end := int64(math.MaxInt64)
	for _, o := range t.Overrides {
		if o.Active(now) {
			end = min(end, o.UntilMicros())
		}
	}
	return end
}

func (t Tenant) validateOverrides() error {
	if err := tooMany("overrides", len(t.Overrides), MaxOverrides, "a tenant has at most %d overrides"); err != nil {
		return err
	}
	for i, o := range t.Overrides {
		path := "overrides[" + strconv.Itoa(i) + "]"
		if o.Until.IsZero() {
			return &limiter.FieldError{Field: path + ".until", Reason: "is required: the RFC 3339 instant the override ends at"}
		}
		if _, err := limiter.NewSet(o.Rules, nil); err != nil {
			return prefixed(path, err)
		}
	}
	return nil
}

// normalizeOverrides fills in each override's rules' defaults (scope tenant when none)
// and keeps its instant in UTC to the microsecond, the precision of decisions.
func normalizeOverrides(os []Override) []Override {
	if len(os) == 0 {
		return nil
	}
	for i := range os {
		normalizeRules(os[i].Rules, limiter.ScopeTenant)
		os[i].Until = os[i].Until.UTC().Truncate(time.Microsecond)
	}
	return os
}
