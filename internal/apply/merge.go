package apply

import (
	"fmt"
	"maps"
	"slices"

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
		if err := checkMerge(t, p); err != nil {
			return fmt.Errorf("tenant %s: %w", id, err)
		}
	}
	return nil
}

// checkMerge checks a tenant against its plan p (nil when it names none) as the admin
// API does before it writes the tenant (tenant.Tenant.CheckPlan): the merge of the
// plan's rules and routes, the tenant's, and every override's compiles. t and p are
// normalized objects.
func checkMerge(t, p Object) error {
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
	if err := tt.CheckPlan(plan); err != nil {
		if plan != nil {
			return fmt.Errorf("%w (its rules and routes merged with plan %s's, and its overrides')", err, plan.ID)
		}
		return fmt.Errorf("%w (its rules merged with its overrides')", err)
	}
	return nil
}
