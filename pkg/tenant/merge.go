package tenant

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

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
//     limiter.MaxRules tenant-wide rules, for instance ("rules");
//   - a route's cost above the capacity of a tenant-wide rule its requests meet at some
//     instant: the merged rules with no override active, or an override's rules
//     ("routes[1].cost" for a route of t's, "plan" for a route of the plan's alone; the
//     reason names the rule and where it comes from).
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
	if _, err := t.EffectiveFor(p, keyRules, EverActive).Sets(); err != nil {
		return mergeError(err)
	}
	return t.checkMergedCosts(p, keyRules)
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
	fe, ok := errors.AsType[*limiter.FieldError](err)
	if !ok || fe.Field != "rules" {
		return err
	}
	return &limiter.FieldError{Field: fe.Field, Value: fe.Value,
		Reason: "the tenant-wide rules a request can meet, merged by name (the plan's, the tenant's, a key's own, every override's), are " + fe.Value + ": " + fe.Reason}
}

// checkMergedCosts checks that every route's cost fits the tenant-wide rules its
// requests can meet: those of the merge with no override active, then each override's.
func (t Tenant) checkMergedCosts(p *Plan, keyRules []limiter.Rule) error {
	base := t.EffectiveFor(p, keyRules, math.MaxInt64) // no override is active
	for _, r := range base.Routes {
		if r.RequestCost() == DefaultCost {
			continue
		}
		lists := [][]limiter.Rule{base.Rules}
		for _, o := range t.Overrides {
			lists = append(lists, o.Rules)
		}
		for i, list := range lists {
			set, err := limiter.NewSet(list, nil)
			if err != nil {
				continue // an empty list; a bad one is reported by its fields
			}
			if ce, ok := errors.AsType[*limiter.CostError](set.CheckCost(r.Cost)); ok {
				return t.costError(p, keyRules, r, ce, i-1)
			}
		}
	}
	return nil
}

// costError is the error of route r, whose cost exceeds the capacity of rule ce.Rule:
// of override o, or of the merge with none active when o is -1.
func (t Tenant) costError(p *Plan, keyRules []limiter.Rule, r Route, ce *limiter.CostError, o int) error {
	from := "overrides[" + strconv.Itoa(o) + "]"
	if o < 0 {
		from = ruleSource(t, p, keyRules, ce.Rule)
	}
	reason := fmt.Sprintf("no request of route %q could be admitted: rule %q of %s holds %d, less than the cost %d",
		r.Name(), ce.Rule, from, ce.Capacity, ce.Cost)
	field, value := "plan", strconv.Quote(t.Plan)
	for i, own := range t.Routes {
		if own.Name() == r.Name() {
			field, value = "routes["+strconv.Itoa(i)+"].cost", strconv.FormatInt(r.Cost, 10)
		}
	}
	return &limiter.FieldError{Field: field, Value: value, Reason: reason}
}

// ruleSource names where the merged tenant-wide rule name comes from: the key's own
// rules, the tenant's, or the plan's (merged in that order of precedence).
func ruleSource(t Tenant, p *Plan, keyRules []limiter.Rule, name string) string {
	has := func(rules []limiter.Rule) bool {
		return slices.ContainsFunc(rules, func(r limiter.Rule) bool { return r.Normalized().Name == name })
	}
	var plan []limiter.Rule
	if p != nil {
		plan = p.Rules
	}
	switch {
	case has(keyOnly(MergeRules(plan, t.Rules), keyRules)):
		return "the key's own rules"
	case has(t.Rules):
		return "the tenant's rules"
	}
	return "plan " + strconv.Quote(t.Plan)
}
