package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// serverManaged are the fields of a tenant or plan that the server manages; Normalize
// drops them (the admin API ignores them in a PUT body).
var serverManaged = []string{"version", "generation", "creation_id", "zone_changes"}

// planFields are the fields of a plan.
var planFields = map[string]bool{"id": true, "rules": true, "routes": true, "version": true}

// placeholderRule stands in for the rules of a tenant or plan that has none of its
// own, so that tenant.Decode validates the rest; Normalize removes it again.
var placeholderRule = map[string]any{"name": "placeholder", "algorithm": "fixed_window", "limit": 1, "period": "1s"}

// normalizeTenant validates a tenant and fills in its defaults, as the admin API stores
// it: tenant.Decode for every field but plan, which is the id of a plan, or absent
// (null and "" too).
func normalizeTenant(obj Object) (Object, error) {
	t := maps.Clone(obj)
	plan, ok := t["plan"].(string)
	if v := t["plan"]; v != nil && v != "" && (!ok || !tenant.ValidID(plan)) {
		return nil, fmt.Errorf("plan: %s is not a plan id", compact(v))
	}
	delete(t, "plan")
	out, err := decodeTenant(t, plan != "")
	if err != nil {
		return nil, err
	}
	if plan != "" {
		out["plan"] = plan
	}
	return out, nil
}

// normalizePlan validates a plan (its rules and routes, as a tenant's) and fills in
// their defaults.
func normalizePlan(obj Object) (Object, error) {
	for field := range obj {
		if !planFields[field] {
			return nil, fmt.Errorf("%s: unknown field: a plan holds id, rules and routes", field)
		}
	}
	t, err := decodeTenant(Object{"id": obj["id"], "rules": obj["rules"], "routes": obj["routes"]}, true)
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

// decodeTenant runs t through tenant.Decode and back to an Object without the
// server-managed fields and without empty rules. Without rules, t is an error unless
// noRules allows it.
func decodeTenant(t Object, noRules bool) (Object, error) {
	for _, f := range serverManaged {
		delete(t, f)
	}
	rules, _ := t["rules"].([]any)
	if len(rules) == 0 {
		if !noRules {
			return nil, errors.New("rules: a tenant needs rules unless it names a plan")
		}
		t["rules"] = []any{placeholderRule}
	}
	data, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	decoded, err := tenant.Decode(data)
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		decoded.Rules = nil
	}
	return toObject(decoded)
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
	for _, f := range serverManaged {
		delete(out, f)
	}
	for f, v := range out {
		if v == nil {
			delete(out, f)
		}
	}
	return out, nil
}
