package apply

import (
	"fmt"
	"maps"
	"slices"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// checkMerges runs checkMerge on the tenants whose plan plans holds and, when
// planless, on those that name none. Parse calls it with the file's plans, check with
// the plans that only the server holds.
func checkMerges(tenants map[string]Object, plans map[string]Object, planless bool) error {
	for _, id := range slices.Sorted(maps.Keys(tenants)) {
		t := tenants[id]
		name, _ := t["plan"].(string)
		p, ok := plans[name]
		if name == "" && !planless || name != "" && !ok {
			continue
		}
		if err := checkMerge(t, p, nil); err != nil {
			return fmt.Errorf("tenant %s: %w", id, err)
		}
	}
	return nil
}

// checkOwnRules runs checkMerge on each tenant that changes replace with the own rules
// of each of its keys, as the admin API does before it replaces a tenant: with its plan
// in want when the file holds it, else in have. A tenant whose keys have does not hold
// is not checked (Refresh reads them; a tenant created has no keys).
func checkOwnRules(want, have *State, changes []Change) error {
	for _, ch := range changes {
		if ch.Kind != "tenant" || ch.Op != '~' {
			continue
		}
		t := want.Tenants[ch.ID]
		name, _ := t["plan"].(string)
		p, ok := want.Plans[name]
		if !ok {
			p = have.Plans[name]
		}
		for _, key := range have.ownRules[ch.ID] {
			if err := checkMerge(t, p, &key); err != nil {
				return fmt.Errorf("tenant %s: %w", ch.ID, err)
			}
		}
	}
	return nil
}

// checkMerge checks a tenant against its plan p (nil when it names none) and, when key
// is not nil, the own rules of that key of the tenant's, as the admin API does before it
// writes the tenant (tenant.Tenant.CheckMerge): the merge of the plan's rules and
// routes, the tenant's, every override's and the key's compiles. t and p are
// normalized objects.
func checkMerge(t, p Object, key *ownRules) error {
	tt, err := decodeWith(t, tenant.Decode)
	if err != nil {
		return err
	}
	var plan *tenant.Plan
	if p != nil {
		pp, err := decodeWith(p, tenant.DecodePlan)
		if err != nil {
			return fmt.Errorf("plan %s: %w", tt.Plan, err)
		}
		plan = &pp
	}
	var keyRules []limiter.Rule
	if key != nil {
		keyRules = key.rules
	}
	if err := tt.CheckMerge(plan, keyRules, nil); err != nil {
		return fmt.Errorf("%w (%s)", err, mergedWith(plan, key))
	}
	return nil
}

// mergedWith says what checkMerge merged a tenant's rules with.
func mergedWith(plan *tenant.Plan, key *ownRules) string {
	what := "its rules merged with its overrides'"
	if plan != nil {
		what = "its rules and routes merged with plan " + plan.ID + "'s, and its overrides'"
	}
	if key != nil {
		what += ", and with the own rules of key " + key.keyID
	}
	return what
}
