package tenant

import (
	"errors"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// CheckMerge is the write-time check of what a tenant is limited by: t merged with its
// plan p (nil when it names none), with every override, and with keyRules, the own
// rules of one of its keys (apikey.Record.Rules; nil for the keys without any). It
// reports the first of these problems, as a *limiter.FieldError:
//   - t names a plan that p is not (UnknownPlan);
//   - with check not nil, a rule of t (CheckRules: "overrides[0].rules[0].limit"), of
//     p ("plan.rules[0].limit") or of keyRules ("key_rules[0].limit") that the counter
//     store refuses (check is what store.CheckRule does for a counter store);
//   - the merge (EffectiveFor, every override active) does not compile: more than
//     limiter.MaxRules tenant-wide rules, for instance ("rules").
//
// A plan's own writes are not checked against the tenants on it: a decision that finds
// a tenant its plan no longer fits meets the tenant's fail mode.
func (t Tenant) CheckMerge(p *Plan, keyRules []limiter.Rule, check func(limiter.Rule) error) error {
	if t.Plan == "" {
		p = nil
	} else if p == nil || p.ID != t.Plan {
		return UnknownPlan(t.Plan)
	}
	if check != nil {
		if err := checkSources(t, p, keyRules, check); err != nil {
			return err
		}
	}
	_, err := t.EffectiveFor(p, keyRules, EverActive).Sets()
	return mergeError(err)
}

// checkSources runs check on every rule of t, of p (under "plan.") and of keyRules
// (under "key_rules").
func checkSources(t Tenant, p *Plan, keyRules []limiter.Rule, check func(limiter.Rule) error) error {
	if err := t.CheckRules(check); err != nil {
		return err
	}
	if p != nil {
		if err := p.CheckRules(check); err != nil {
			return prefixed("plan", err)
		}
	}
	return checkRules("key_rules", keyRules, check)
}

// mergeError says of an error of the merged tenant-wide rules that it is the merge's.
func mergeError(err error) error {
	var fe *limiter.FieldError
	if !errors.As(err, &fe) || fe.Field != "rules" {
		return err
	}
	return &limiter.FieldError{Field: fe.Field, Value: fe.Value,
		Reason: "the tenant-wide rules a request can meet, merged by name (the plan's, the tenant's, a key's own, every override's), are " + fe.Value + ": " + fe.Reason}
}
