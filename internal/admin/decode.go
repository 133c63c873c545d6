package admin

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// serverManaged are the members of a tenant that the server manages: a body may carry
// them (a GET body sent back does) but they are dropped before decoding, as they are
// ignored. Decoding them would check a stale zone history against a new time zone.
var serverManaged = []string{"version", "generation", "zone_changes"}

// decodePut decodes a PUT body: a tenant whose id, when given, is the path's. An
// absent id is the path's, absent rules are the default rules (when configured) unless
// the tenant names a plan, whose rules it gets; version, generation and zone_changes are accepted (so that a GET body can be sent
// back) and ignored: the server manages them.
func (h *Handler) decodePut(body []byte, id string) (tenant.Tenant, error) {
	fields, err := objectFields(body, id, "tenant")
	if err != nil {
		return tenant.Tenant{}, err
	}
	if fields != nil {
		for _, name := range serverManaged {
			delete(fields, name)
		}
		if raw, ok := fields["rules"]; (!ok || string(raw) == "null") && h.defaultRules != nil && !namesPlan(fields["plan"]) {
			fields["rules"], _ = json.Marshal(h.defaultRules)
		}
		body, _ = json.Marshal(fields) // re-encoding decoded JSON cannot fail
	}
	return h.decodeTenant(body)
}

// objectFields checks that a PUT body is one JSON object (what it holds: a tenant or a
// plan) whose id, when given, is the path's, and returns its members with the path's
// id filled in; nil members when the object does not decode as one, for the strict
// decoder to report.
func objectFields(body []byte, id, what string) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, newError(problemInvalidJSON, "the body is empty: want a "+what+", a JSON object")
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return nil, newError(problemInvalidJSON, "the body is not one JSON value")
		}
		return nil, fieldError("", "", "the body must be a JSON object: a "+what)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return nil, nil
	}
	if raw, ok := fields["id"]; ok {
		var bodyID string
		if json.Unmarshal(raw, &bodyID) == nil && bodyID != id {
			return nil, fieldError("id", strconv.Quote(bodyID), "must be the "+what+" id of the path, "+strconv.Quote(id)+", or left out")
		}
	} else {
		fields["id"], _ = json.Marshal(id)
	}
	return fields, nil
}

// decodeTenant decodes a tenant strictly (tenant.Decode) and checks that its routes'
// resources can be API Gateway's (tenant.Tenant.CheckResources) and that the counter
// store can honour every rule of it (store.RuleChecker): a resource no request can
// have, or a rule the store would refuse on every decision, is a 422 naming the field,
// and nothing is written.
func (h *Handler) decodeTenant(data []byte) (tenant.Tenant, error) {
	t, err := tenant.Decode(data)
	if err == nil {
		err = t.CheckResources()
	}
	if err == nil {
		err = t.CheckRules(h.honours)
	}
	if err != nil {
		return tenant.Tenant{}, validationError(err)
	}
	return t, nil
}

// honours reports whether the counter store can decide r.
func (h *Handler) honours(r limiter.Rule) error { return store.CheckRule(h.counters, r) }

// decodePatch decodes a JSON Merge Patch body, which must be an object: a patch that
// is not would replace the whole tenant with a non-object.
func decodePatch(body []byte) (map[string]any, error) {
	v, err := decodeValue(body)
	if err != nil {
		return nil, err
	}
	patch, ok := v.(map[string]any)
	if !ok {
		return nil, fieldError("", "", "a merge patch of a tenant must be a JSON object")
	}
	return patch, nil
}

// decodeValue decodes exactly one JSON value, keeping numbers as written.
func decodeValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, newError(problemInvalidJSON, "the body is empty: want a JSON object")
		}
		return nil, newError(problemInvalidJSON, "the body is not valid JSON: "+err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, newError(problemInvalidJSON, "the body holds data after the JSON value")
	}
	return v, nil
}

// namesPlan reports whether raw, a tenant's "plan" member, names a plan: such a tenant
// without rules of its own gets its plan's, not the default rules.
func namesPlan(raw json.RawMessage) bool {
	var plan string
	return json.Unmarshal(raw, &plan) == nil && plan != ""
}

// applyPatch merges patch into the tenant's JSON (RFC 7396) and decodes the result
// strictly, as a PUT body would be (a patch that removes the rules gets the default
// rules, when configured, unless the tenant names a plan).
func (h *Handler) applyPatch(old tenant.Tenant, patch map[string]any) (tenant.Tenant, error) {
	stored, err := json.Marshal(old)
	if err != nil {
		return tenant.Tenant{}, err
	}
	target, err := decodeValue(stored)
	if err != nil {
		return tenant.Tenant{}, err
	}
	doc := mergePatch(target, patch).(map[string]any) // patch is an object
	for _, name := range serverManaged {
		delete(doc, name)
	}
	if _, ok := doc["rules"]; !ok && h.defaultRules != nil {
		if plan, _ := doc["plan"].(string); plan == "" {
			doc["rules"] = h.defaultRules
		}
	}
	merged, err := json.Marshal(doc)
	if err != nil {
		return tenant.Tenant{}, err
	}
	return h.decodeTenant(merged)
}

// mergePatch applies patch to target as RFC 7396 defines it: objects merge member by
// member, null removes a member, anything else replaces. target may be changed.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// writeJSON writes v as the JSON body of a response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeProblem(w, &apiError{slug: problemInternal, detail: "encoding the response failed"}, "")
		return
	}
	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}
