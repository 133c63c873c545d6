package tenant

import (
	"encoding/json"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Plan is a set of rules and routes that tenants share by naming it in their Plan
// field ("pro", "free"): changing the plan changes what every tenant on it gets, with
// one write. Its JSON is a tenant's id, rules and routes, and a server-managed version:
//
//	{"id": "pro", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}],
//	 "routes": [...], "version": 2}
//
// A plan is validated as a tenant's rules and routes are (Validate), and its version is
// the admin API's ETag, as a tenant's is. What a tenant on the plan is limited by is
// Effective's merge: the plan's rules and routes, then the tenant's own, then its
// active overrides. The zero Plan is not valid: it lacks an id and rules.
type Plan struct {
	ID      string         `json:"id"`
	Rules   []limiter.Rule `json:"rules"`
	Routes  []Route        `json:"routes,omitempty"`
	Version int64          `json:"version"`
}

// asTenant returns the tenant holding p's id, rules and routes, so that a plan is
// normalized, validated and checked by the tenant's code.
func (p Plan) asTenant() Tenant {
	return Tenant{ID: p.ID, Rules: p.Rules, Routes: p.Routes, Version: p.Version}
}

// Normalized returns a deep copy of p with its rules' defaults filled in, as
// Tenant.Normalized fills in a tenant's.
func (p Plan) Normalized() Plan {
	t := p.asTenant().Normalized()
	return Plan{ID: t.ID, Rules: t.Rules, Routes: t.Routes, Version: t.Version}
}

// Clone returns a deep copy of p.
func (p Plan) Clone() Plan {
	t := p.asTenant().Clone()
	return Plan{ID: t.ID, Rules: t.Rules, Routes: t.Routes, Version: t.Version}
}

// Validate checks p as Tenant.Validate checks a tenant's id, rules, routes and version,
// and returns the first problem as a *limiter.FieldError with the same paths.
func (p Plan) Validate() error {
	t := p.asTenant()
	for _, check := range []func() error{t.validateID, t.validateRules, t.validateRoutes, t.validateCounters} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// CheckRules runs check on every rule of p as Tenant.CheckRules does.
func (p Plan) CheckRules(check func(limiter.Rule) error) error {
	return p.asTenant().CheckRules(check)
}

// validatePlan checks the plan a tenant names: empty (none) or a valid id.
func (t Tenant) validatePlan() error {
	if t.Plan == "" || ValidID(t.Plan) {
		return nil
	}
	return &limiter.FieldError{Field: "plan", Value: strconv.Quote(t.Plan),
		Reason: "must be a plan id: 1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit"}
}

// UnknownPlan is the error of a tenant that names a plan that does not exist: a
// *limiter.FieldError for "plan", which stores return and the admin API answers 422.
func UnknownPlan(id string) error {
	return &limiter.FieldError{Field: "plan", Value: strconv.Quote(id), Reason: "names no plan: create the plan first"}
}

// CheckPlan reports whether t can be limited under p (nil when t names no plan): it
// is CheckMerge for the keys without rules of their own, without a counter store's
// check.
func (t Tenant) CheckPlan(p *Plan) error { return t.CheckMerge(p, nil, nil) }

// planJSON mirrors Plan for strict decoding, as tenantJSON does Tenant.
type planJSON struct {
	ID      string            `json:"id"`
	Rules   []json.RawMessage `json:"rules"`
	Routes  []json.RawMessage `json:"routes"`
	Version int64             `json:"version"`
}

const planFields = "id, rules, routes, version"

// DecodePlan reads one plan from JSON strictly, as Decode reads a tenant: unknown
// fields and trailing data are errors, the defaults are filled in, and the plan is
// validated. Errors name the field as a *limiter.FieldError, or wrap ErrSyntax.
func DecodePlan(data []byte) (Plan, error) {
	var raw planJSON
	if err := strictDecode(data, &raw, "", planFields); err != nil {
		return Plan{}, err
	}
	p := Plan{ID: raw.ID, Version: raw.Version}
	var err error
	if p.Rules, err = decodeRules(raw.Rules, "rules"); err != nil {
		return Plan{}, err
	}
	if p.Routes, err = decodeRoutes(raw.Routes); err != nil {
		return Plan{}, err
	}
	if err := p.Validate(); err != nil {
		return Plan{}, err
	}
	return p.Normalized(), nil
}

// UnmarshalJSON decodes the plan as DecodePlan does.
func (p *Plan) UnmarshalJSON(data []byte) error {
	out, err := DecodePlan(data)
	if err != nil {
		return err
	}
	*p = out
	return nil
}
