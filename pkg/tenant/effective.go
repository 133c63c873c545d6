package tenant

import "github.com/edgelimit/edgelimit/pkg/limiter"

// Effective returns the tenant as it is limited at now (microseconds): its rules and
// routes merged over its plan's p (nil when it names none), then the rules of its
// overrides active at now, in their order. A later list replaces an earlier one's rule
// of the same name (whatever its scope: names are unique in a rule list) and adds its
// other rules after the earlier ones; routes merge likewise by Route.Name, a tenant's
// route replacing the plan's whole. Overrides change the tenant-wide rules only. The
// result names no plan and holds no overrides: compile it with Sets.
//
// The rules of each source keep their content, and so their limiter.Rule.StateID: a
// plan change that leaves a rule as it was keeps its counters' state.
func (t Tenant) Effective(p *Plan, now int64) Tenant { return t.EffectiveFor(p, nil, now) }

// EffectiveFor is Effective for the requests of a key whose record holds rules of its
// own (apikey.Record.Rules): they are merged after the tenant's rules and before the
// overrides (plan, then tenant, then key, then active overrides). A key's rule is a
// key-scope rule: it replaces the key-scope rule of its name, or is added; one named
// as a tenant- or ip-scope rule is left out, since it would change a counter that
// other keys share. Only that key's counters see the result.
func (t Tenant) EffectiveFor(p *Plan, keyRules []limiter.Rule, now int64) Tenant {
	out := t.Clone()
	out.Plan, out.Overrides = "", nil
	if p != nil {
		out.Rules = MergeRules(p.Rules, t.Rules)
		out.Routes = mergeRoutes(p.Routes, t.Routes)
	}
	out.Rules = MergeRules(out.Rules, keyOnly(out.Rules, keyRules))
	for _, o := range t.Overrides {
		if o.Active(now) {
			out.Rules = MergeRules(out.Rules, o.Rules)
		}
	}
	return out.Clone()
}

// keyOnly returns a key's rules in scope key, leaving out those named as a rule of
// rules whose scope is not key.
func keyOnly(rules, keyRules []limiter.Rule) []limiter.Rule {
	shared := map[string]bool{}
	for _, r := range rules {
		if r.Scope != limiter.ScopeKey {
			shared[r.Normalized().Name] = true
		}
	}
	var out []limiter.Rule
	for _, r := range keyRules {
		if r = r.Normalized(); !shared[r.Name] {
			r.Scope = limiter.ScopeKey
			out = append(out, r)
		}
	}
	return out
}

// MergeRules returns base with each rule of over replacing base's rule of the same
// name in its place, and over's other rules appended in their order. base and over
// are not changed; rules without names are matched by the names Normalized gives them.
func MergeRules(base, over []limiter.Rule) []limiter.Rule {
	return mergeBy(base, over, func(r limiter.Rule) string { return r.Normalized().Name })
}

func mergeRoutes(base, over []Route) []Route { return mergeBy(base, over, Route.Name) }

// mergeBy returns base with each item of over replacing base's item of the same name
// in its place, and over's other items appended; nil when both are empty.
func mergeBy[T any](base, over []T, name func(T) string) []T {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := make([]T, 0, len(base)+len(over))
	at := make(map[string]int, len(base)+len(over))
	for _, list := range [][]T{base, over} {
		for _, x := range list {
			if i, ok := at[name(x)]; ok {
				out[i] = x
				continue
			}
			at[name(x)] = len(out)
			out = append(out, x)
		}
	}
	return out
}
