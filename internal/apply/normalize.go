package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// serverManaged are the fields of a tenant or plan that the server manages; Normalize
// drops them (the admin API ignores them in a PUT body).
var serverManaged = []string{"version", "generation", "creation_id", "zone_changes"}

// planFields are the fields of a plan.
var planFields = map[string]bool{"id": true, "rules": true, "routes": true, "version": true}

// normalizeTenant validates a tenant and fills in its defaults, as the admin API stores
// it: tenant.Decode for every field but plan, which is the id of a plan, or absent
// (null and "" too). A tenant that names a plan may hold no rules of its own.
func normalizeTenant(obj Object) (Object, error) {
	t := maps.Clone(obj)
	plan, ok := t["plan"].(string)
	if v := t["plan"]; v != nil && v != "" && (!ok || !tenant.ValidID(plan)) {
		return nil, fmt.Errorf("plan: %s is not a plan id", compact(v))
	}
	if plan == "" {
		delete(t, "plan")
		if rules, _ := t["rules"].([]any); len(rules) == 0 {
			return nil, errors.New("rules: a tenant needs rules unless it names a plan")
		}
	}
	for _, f := range serverManaged {
		delete(t, f)
	}
	decoded, err := decodeWith(t, tenant.Decode)
	if err != nil {
		return nil, err
	}
	if len(decoded.Rules) == 0 {
		decoded.Rules = nil // a plan's tenant without rules of its own: absent, as the server reads it
	}
	return toObject(decoded)
}

// normalizePlan validates a plan as the admin API does (tenant.DecodePlan: its rules
// and routes, as a tenant's) and fills in their defaults.
func normalizePlan(obj Object) (Object, error) {
	for _, field := range slices.Sorted(maps.Keys(obj)) {
		if !planFields[field] {
			return nil, fmt.Errorf("%s: unknown field: a plan holds id, rules and routes", field)
		}
	}
	p, err := decodeWith(Object{"id": obj["id"], "rules": obj["rules"], "routes": obj["routes"]}, tenant.DecodePlan)
	if err != nil {
		return nil, err
	}
	t, err := toObject(tenant.Tenant{ID: p.ID, Rules: p.Rules, Routes: p.Routes})
	if err != nil {
		return nil, err
	}
	out := Object{"id": t["id"]}
	for _, f := range []string{"rules", "routes"} {
		if v, ok := t[f]; ok {
			out[f] = v
		}
	}
	return out, nil
}

// forWrite returns normalize with the checks that the admin API makes of a write only
// (CheckResources: tenant.Tenant's or tenant.Plan's, as decode reads obj), which Parse
// makes of a file's objects and Read does not of the server's.
func forWrite[T interface{ CheckResources() error }](normalize func(Object) (Object, error), decode func([]byte) (T, error)) func(Object) (Object, error) {
	return func(obj Object) (Object, error) {
		norm, err := normalize(obj)
		if err != nil {
			return nil, err
		}
		v, err := decodeWith(norm, decode)
		if err == nil {
			err = v.CheckResources()
		}
		if err != nil {
			return nil, err
		}
		return norm, nil
	}
}

// decodeWith decodes obj's JSON with decode (tenant.Decode, tenant.DecodePlan).
func decodeWith[T any](obj Object, decode func([]byte) (T, error)) (T, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(data)
}

// toObject is t's JSON as an Object, without the server-managed fields and the empty
// lists and maps.
func toObject(t tenant.Tenant) (Object, error) {
	data, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var out Object
	if err := decodeObject(data, &out); err != nil {
		return nil, err
	}
	maps.DeleteFunc(out, func(f string, v any) bool { return v == nil || slices.Contains(serverManaged, f) })
	return out, nil
}
