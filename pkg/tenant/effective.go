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
func (t Tenant) Effective(p *Plan, now int64) Tenant {
	out := t.Clone()
	out.Plan, out.Overrides = "", nil
	if p != nil {
		out.Rules = MergeRules(p.Rules, t.Rules)
		out.Routes = mergeRoutes(p.Routes, t.Routes)
	}
	for _, o := range t.Overrides {
		if o.Active(now) {
			out.Rules = MergeRules(out.Rules, o.Rules)
		}
	}
	return out.Clone()
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
