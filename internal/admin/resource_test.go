package admin_test

import "testing"

// TestGreedyVariableNotLastIsRefused: API Gateway refuses a resource whose greedy
// variable is not its last segment, so a route on /a/{proxy+}/b could never apply. A
// tenant write (PUT, PATCH) or a plan write with one is a 422 naming the route's
// resource, and nothing is written.
func TestGreedyVariableNotLastIsRefused(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.create("acme", acme)
	route := `[{"method": "GET", "resource": "/a/{proxy+}/b", "rules": [{"name": "r", "algorithm": "fixed_window", "limit": 5, "period": "1m"}]}]`
	rules := `[{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"}]`
	before := e.snapshot()
	e.do("PUT", "/tenants/other", `{"rules": `+rules+`, "routes": `+route+`}`).problem(t, 422, "invalid-field", "routes[0].resource")
	e.do("PATCH", "/tenants/acme", `{"routes": `+route+`}`, "Content-Type", patchType, "If-Match", `"1"`).
		problem(t, 422, "invalid-field", "routes[0].resource")
	e.do("PUT", "/plans/pro", `{"rules": `+rules+`, "routes": `+route+`}`).problem(t, 422, "invalid-field", "routes[0].resource")
	if after := e.snapshot(); after != before {
		t.Errorf("a refused write was stored:\n%s", after)
	}
	e.do("PUT", "/plans/pro", `{"rules": `+rules+`, "routes": [{"method": "GET", "resource": "/a/{proxy+}", "rules": `+rules+`}]}`).want(t, 201)
}
