package admin_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestMergedRulesOverEightAreRefused: "at most 8 rules a set" (docs/reference.md,
// "Rules"), and a tenant whose merge with its plan makes more is refused (422). A
// tenant of 8 rules with an override that adds a ninth, and a key whose own rule adds
// a ninth to its tenant's 8, make the same set; so does a tenant of 7 rules, with a
// key whose own rule is an eighth, patched to 8 rules of its own.
func TestMergedRulesOverEightAreRefused(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	eight := ""
	for i := range 8 {
		eight += fmt.Sprintf(`{"name": "r%d", "algorithm": "fixed_window", "limit": 100, "period": "%dm"}, `, i, i+1)
	}
	eight = strings.TrimSuffix(eight, ", ")
	seven := eight[strings.Index(eight, "}, ")+3:] // r1 to r7
	ninth := `{"name": "r9", "algorithm": "fixed_window", "limit": 5, "period": "1h"}`
	before := e.snapshot()
	if r := e.do("PUT", "/tenants/nine", `{"rules": [`+eight+`], "overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [`+ninth+`]}]}`); r.status != 422 {
		t.Errorf("8 rules and an override adding a ninth: %d, want 422", r.status)
	}
	if after := e.snapshot(); after != before {
		t.Errorf("the refused tenant was stored:\n%s", after)
	}
	e.create("eight", `{"rules": [`+eight+`]}`)
	before = e.snapshot()
	if r := e.do("POST", "/tenants/eight/keys", `{"rules": [`+ninth+`]}`); r.status != 422 {
		t.Errorf("a key adding a ninth rule to its tenant's 8: %d, want 422", r.status)
	}
	if after := e.snapshot(); after != before {
		t.Errorf("the refused key was stored:\n%s", after)
	}

	e.create("seven", `{"rules": [`+seven+`]}`)
	e.do("POST", "/tenants/seven/keys", `{"rules": [`+ninth+`]}`).want(t, 201)
	before = e.snapshot()
	if r := e.do("PATCH", "/tenants/seven", `{"rules": [`+eight+`]}`, "Content-Type", patchType, "If-Match", `"1"`); r.status != 422 {
		t.Errorf("a tenant of 7 rules and a key of its own ninth, patched to 8 rules: %d, want 422", r.status)
	}
	if after := e.snapshot(); after != before {
		t.Errorf("the refused patch was stored:\n%s", after)
	}
}

// TestRouteCostAboveTheRulesItMeetsIsRefused: a route's cost is "at most the capacity
// of every rule its requests meet" (docs/reference.md, "Tenants and API keys"), and a
// tenant whose own rules break that is refused (422 naming routes[0].cost). So is one
// whose rules that break it come from elsewhere: stored, it would fail every request
// of the route (the gate returns a *limiter.CostError: the authorizer's invocation
// errors, API Gateway answers 500, edgelimit dev answers 500 and logs no decision).
// Each write below must be a 422 that writes nothing:
//   - a tenant naming a plan whose tenant-wide rule holds less than the route's cost;
//   - a key issued with an own rule that holds less than a route's cost;
//   - an override whose rule holds less than a route's cost.
func TestRouteCostAboveTheRulesItMeetsIsRefused(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.do("PUT", "/plans/small", `{"rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 3, "period": "1m"}]}`).want(t, 201)
	chat := `"routes": [{"method": "POST", "resource": "/chat", "cost": 5, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 50, "period": "1m"}]}]`
	e.do("PUT", "/tenants/own", `{"rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 3, "period": "1m"}], `+chat+`}`).
		problem(t, 422, "invalid-field", "routes[0].cost") // the tenant's own rules: refused, as documented

	before := e.snapshot()
	if r := e.do("PUT", "/tenants/onplan", `{"plan": "small", `+chat+`}`); r.status != 422 {
		t.Errorf("a tenant on plan small (tpm holds 3) with a route of cost 5: %d, want 422", r.status)
	}
	if after := e.snapshot(); after != before {
		t.Errorf("the refused tenant was stored:\n%s", after)
	}

	e.create("llm", `{"rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 100, "period": "1m", "scope": "key"}], `+chat+`}`)
	before = e.snapshot()
	if r := e.do("POST", "/tenants/llm/keys", `{"rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 3, "period": "1m"}]}`); r.status != 422 {
		t.Errorf("a key whose own tpm holds 3, under a route of cost 5: %d, want 422", r.status)
	}
	if r := e.do("PATCH", "/tenants/llm", `{"overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 3, "period": "1m"}]}]}`,
		"Content-Type", "application/merge-patch+json", "If-Match", `"1"`); r.status != 422 {
		t.Errorf("an override whose tpm holds 3, under a route of cost 5: %d, want 422", r.status)
	}
	if after := e.snapshot(); after != before {
		t.Errorf("a refused write was stored:\n%s\nbefore:\n%s", after, before)
	}
}
