package apply_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

const rule = `{algorithm: fixed_window, limit: 5, period: 1s}`

// TestBadFilesChangeNothing: a file that is malformed, invalid, or asks for what the
// admin API cannot do is an error naming the object and field, before any write.
func TestBadFilesChangeNothing(t *testing.T) {
	tests := []struct {
		name, file, want string
		noPlans          bool
	}{
		{"unknown list", "tenant: []", `unknown field "tenant"`, false},
		{"empty", "# nothing\n", "the file is empty", false},
		{"two documents", "tenants: []\n---\nplans: []\n", "more than one document", false},
		{"not a mapping key", "tenants:\n  - {1: x}\n", `tenants[0]: the key 1 is not a string: quote it ("1")`, false},
		{"a key id that reads as a number", "keys:\n  12345678: {tenant: acme}\n", `keys: the key 12345678 is not a string: quote it ("12345678")`, false},
		{"bad rule", "tenants: [{id: acme, rules: [{algorithm: fixed_window, limit: -1, period: 1s}]}]", "tenants[0] (acme): rules[0].limit", false},
		{"unknown tenant field", "tenants: [{id: acme, rulez: []}]", "tenants[0] (acme): ", false},
		{"bad time zone", "tenants: [{id: acme, timezone: Mars/Base, rules: [" + rule + "]}]", "timezone", false},
		{"no rules, no plan", "tenants: [{id: acme}]", "tenants[0] (acme): rules: a tenant needs rules unless it names a plan", false},
		{"twice", "tenants: [{id: acme, rules: [" + rule + "]}, {id: acme, rules: [" + rule + "]}]", `tenants[1] (acme): id "acme" is listed twice`, false},
		{"bad plan id", "tenants: [{id: acme, plan: Pro, rules: [" + rule + "]}]", `plan: "Pro" is not a plan id`, false},
		{"plan without rules", "plans: [{id: pro, routes: [{method: GET, resource: /a, rules: [" + rule + "]}]}]", "plans[0] (pro): rules: must hold at least one rule", false},
		{"unknown plan field", "plans: [{id: pro, rules: [" + rule + "], metadata: {}}]", "plans[0] (pro): metadata: unknown field", false},
		{"greedy variable not last", "tenants: [{id: acme, rules: [" + rule + "], routes: [{method: GET, resource: \"/a/{proxy+}/b\", rules: [" + rule + "]}]}]",
			"tenants[0] (acme): routes[0].resource", false},
		{"plan's greedy variable not last", "plans: [{id: pro, rules: [" + rule + "], routes: [{method: GET, resource: \"/{proxy+}/b\", rules: [" + rule + "]}]}]",
			"plans[0] (pro): routes[0].resource", false},
		{"plan nowhere", "tenants: [{id: acme, plan: gold}]", `tenant acme: plan "gold" is neither in the file nor on the server`, false},
		{"plans unserved", "plans: [{id: pro, rules: [" + rule + "]}]", "the admin API serves none", true},
		{"key secret", "keys: {acmekey1: {tenant: acme, secret: elk_x}}", "keys.acmekey1.secret: unknown field", false},
		{"key rules", "keys: {acmekey1: {tenant: acme, rules: []}}", "keys.acmekey1.rules: unknown field", false},
		{"key status", "keys: {acmekey1: {tenant: acme, status: paused}}", `keys.acmekey1.status: "paused"`, false},
		{"key id", "keys: {ACME: {tenant: acme}}", "keys.ACME: not a key id", false},
		{"key missing", "keys: {newkey01: {tenant: acme}}", "key newkey01 of tenant acme does not exist, and the admin API draws a new key's id itself", false},
		{"key elsewhere", "keys: {acmekey1: {tenant: globex}}", "key acmekey1 belongs to tenant acme, not globex", false},
		{"key revived", "keys: {revoked1: {tenant: acme}}", "key revoked1 of tenant acme is revoked, and a revoked key cannot be made active again", false},
		{"JSON trailing", `{"tenants": []} []`, "data after the JSON value", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			s.noPlans = tc.noPlans
			s.putTenant(t, `{"id": "acme", "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1s"}]}`)
			s.putKey(t, "acme", "acmekey1")
			s.putKey(t, "acme", "revoked1")
			if code := s.call(t, http.MethodDelete, "/tenants/acme/keys/revoked1", "", ""); code != http.StatusOK {
				t.Fatalf("revoking: %d", code)
			}
			var out bytes.Buffer
			name := "limits.yaml"
			if strings.HasPrefix(tc.file, "{") {
				name = "limits.json"
			}
			want, err := apply.Parse(name, []byte(tc.file))
			if err == nil {
				err = apply.Run(context.Background(), s.client(t), want, false, false, &out)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
			if n := s.writes.Load(); n != 0 || out.Len() != 0 {
				t.Errorf("%d writes, output %q; want none", n, out.String())
			}
		})
	}
}

// TestPrune: with prune, a tenant and a plan the file does not name are deleted (the
// tenant first, since a plan in use cannot go), and an active key of a listed tenant
// that the file does not list is revoked; without prune they stay.
func TestPrune(t *testing.T) {
	s := newServer(t)
	seed(t, s)
	if code := s.call(t, http.MethodPut, "/plans/old", "", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "routes": []}`); code != http.StatusCreated {
		t.Fatalf("PUT /plans/old: %d", code)
	}
	var out bytes.Buffer
	if err := apply.Run(context.Background(), s.client(t), limitsFile(t), true, false, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	lines := strings.Split(out.String(), "\n")
	want := []string{"- tenant legacy", "- key acmekey3 of tenant acme: revoked (not in the file)", "- plan old", "applied: 2 added, 3 changed, 3 deleted"}
	for _, w := range want {
		if !strings.Contains(out.String(), w+"\n") {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
	if lines[len(lines)-4] != "- plan old" {
		t.Errorf("the plan is not deleted last:\n%s", out.String())
	}
	if code := s.call(t, http.MethodGet, "/tenants/legacy", "", ""); code != http.StatusNotFound {
		t.Errorf("GET /tenants/legacy after prune: %d, want 404", code)
	}
	if body := s.get(t, "/tenants/acme/keys/acmekey3"); !strings.Contains(body, `"revoked":true`) {
		t.Errorf("acmekey3 after prune: %s, want revoked", body)
	}
}

// fiveRules and fourRules are rule lists (JSON, and so YAML too) that make 9 rules
// together, one more than a set holds.
const (
	fiveRules = `[{"name": "a1", "algorithm": "fixed_window", "limit": 100, "period": "1m"},
		{"name": "a2", "algorithm": "fixed_window", "limit": 100, "period": "2m"},
		{"name": "a3", "algorithm": "fixed_window", "limit": 100, "period": "3m"},
		{"name": "a4", "algorithm": "fixed_window", "limit": 100, "period": "4m"},
		{"name": "a5", "algorithm": "fixed_window", "limit": 100, "period": "5m"}]`
	fourRules = `[{"name": "b1", "algorithm": "fixed_window", "limit": 100, "period": "1h"},
		{"name": "b2", "algorithm": "fixed_window", "limit": 100, "period": "2h"},
		{"name": "b3", "algorithm": "fixed_window", "limit": 100, "period": "3h"},
		{"name": "b4", "algorithm": "fixed_window", "limit": 100, "period": "4h"}]`
)

// TestTenantThatDoesNotMergeWithItsPlanWritesNothing: "The whole file is validated
// first, with the checks the admin API makes ... a problem is an error naming the
// object and the field ... and nothing is written" (docs/reference.md, "Limits as
// code"). A tenant whose rules and its plan's (or its overrides') make more than the 8
// a set holds is refused by the admin API (422), so apply refuses the file before any
// write: Parse when the file holds the plan, the diff when only the server does.
func TestTenantThatDoesNotMergeWithItsPlanWritesNothing(t *testing.T) {
	tests := []struct{ name, serverPlan, file string }{
		{"its plan in the file", "", "plans:\n  - id: wide\n    rules: " + fiveRules + "\ntenants:\n  - id: widet\n    plan: wide\n    rules: " + fourRules + "\n"},
		{"its plan on the server", "wide", "tenants:\n  - id: widet\n    plan: wide\n    rules: " + fourRules + "\n"},
		{"its overrides", "", "tenants:\n  - id: widet\n    rules: " + fiveRules + "\n    overrides: [{until: \"2099-01-01T00:00:00Z\", rules: " + fourRules + "}]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			if tc.serverPlan != "" {
				if code, body := s.send(t, http.MethodPut, "/plans/wide", "", `{"rules": `+fiveRules+`}`); code != http.StatusCreated {
					t.Fatalf("PUT /plans/wide: %d %s", code, body)
				}
				s.writes.Store(0)
			}
			var out bytes.Buffer
			want, err := apply.Parse("limits.yaml", []byte(tc.file))
			if err == nil {
				err = apply.Run(context.Background(), s.client(t), want, false, false, &out)
			}
			if err == nil || !strings.Contains(err.Error(), "tenant widet: rules = 9:") || !strings.Contains(err.Error(), "a rule set holds at most 8 rules") {
				t.Errorf("error %v; want one naming tenant widet and its 9 rules", err)
			}
			if n := s.writes.Load(); n != 0 || out.Len() != 0 {
				t.Errorf("%d writes before the error, output %q; want none", n, out.String())
			}
		})
	}
}

// TestSeveralProblemsReportTheSameOneEachTime: a file with more than one bad entry
// names the same one on every parse (the first key id, then the first field, in
// sorted order), where a walk of Go's maps once named either at random.
func TestSeveralProblemsReportTheSameOneEachTime(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"keys", "keys: {zzzzkey1: {tenant: acme, status: paused}, acmekey1: {tenant: acme, secret: x, rules: []}}", "keys.acmekey1.rules: unknown field"},
		{"plan fields", "plans: [{id: free, rules: [" + rule + "], zeta: 1, alpha: 2}]", "plans[0] (free): alpha: unknown field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for range 50 {
				_, err := apply.Parse("f.yaml", []byte(c.file))
				if err == nil || !strings.HasPrefix(err.Error(), c.want) {
					t.Fatalf("Parse: %v, want an error starting %q", err, c.want)
				}
			}
		})
	}
}
