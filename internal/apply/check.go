package apply

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// check refuses a file that no set of writes can honour, before any is made: plans on a
// server without them, a tenant naming a plan that will not exist or whose rules do
// not merge with those of the server's plan, and keys the admin API cannot make so
// (see the package doc).
func check(want, have *State, prune bool) error {
	if len(want.Plans) > 0 && !have.plansServed {
		return errors.New("the file holds plans and the admin API serves none (404 on GET /plans): it predates plans")
	}
	for _, id := range slices.Sorted(maps.Keys(want.Tenants)) {
		plan, _ := want.Tenants[id]["plan"].(string)
		_, inFile := want.Plans[plan]
		_, onServer := have.Plans[plan]
		if plan != "" && !inFile && (!onServer || prune) {
			if onServer {
				return fmt.Errorf("tenant %s: plan %q is not in the file, and prune deletes the plans the file does not list", id, plan)
			}
			return fmt.Errorf("tenant %s: plan %q is neither in the file nor on the server", id, plan)
		}
	}
	serverOnly := maps.Clone(have.Plans) // the plans that only the server holds
	maps.DeleteFunc(serverOnly, func(id string, _ Object) bool { _, ok := want.Plans[id]; return ok })
	if err := checkMerges(want.Tenants, serverOnly, false); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(want.Keys)) {
		if err := checkKey(id, want, have, prune); err != nil {
			return err
		}
	}
	return nil
}

func checkKey(id string, want, have *State, prune bool) error {
	w := want.Keys[id]
	h, ok := have.Keys[id]
	_, tenantInFile := want.Tenants[w.Tenant]
	switch {
	case !ok:
		return fmt.Errorf("key %s of tenant %s does not exist, and the admin API draws a new key's id itself: issue the key with POST /tenants/%s/keys (its answer shows the secret once), then list it by the id it got (edgelimit export shows it)", id, w.Tenant, w.Tenant)
	case h.Tenant != w.Tenant:
		return fmt.Errorf("key %s belongs to tenant %s, not %s", id, h.Tenant, w.Tenant)
	case h.Status == KeyRevoked && w.Status == KeyActive:
		return fmt.Errorf("key %s of tenant %s is revoked, and a revoked key cannot be made active again: issue a new key, and mark this one revoked (or drop it from the file)", id, w.Tenant)
	case prune && !tenantInFile:
		return fmt.Errorf("key %s: its tenant %s is not in the file, so --prune would delete it with its keys", id, w.Tenant)
	}
	return nil
}
