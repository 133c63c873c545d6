package tenant_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// rulesJSON returns n fixed-window rules named prefix0, prefix1, ... as JSON members of
// a rule list, each of limit.
func rulesJSON(prefix string, n, limit int) string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`{"name": "%s%d", "algorithm": "fixed_window", "limit": %d, "period": "%dm"}`, prefix, i, limit, i+1))
	}
	return strings.Join(out, ", ")
}

// mustDecode decodes a tenant, failing t if it is not valid.
func mustDecode(t *testing.T, doc string) tenant.Tenant {
	t.Helper()
	tn, err := tenant.Decode([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return tn
}

// mustRules decodes a key's own rules, a rule list's members.
func mustRules(t *testing.T, list string) []limiter.Rule {
	t.Helper()
	tn := mustDecode(t, `{"id": "k", "rules": [`+list+`]}`)
	for i := range tn.Rules {
		tn.Rules[i].Scope = limiter.ScopeKey
	}
	return tn.Rules
}

// checkMerge decodes doc and keyRules (a rule list's members, "" for none) and returns
// what CheckMerge says of them under p.
func checkMerge(t *testing.T, doc, keyRules string, p *tenant.Plan, check func(limiter.Rule) error) error {
	t.Helper()
	var rules []limiter.Rule
	if keyRules != "" {
		rules = mustRules(t, keyRules)
	}
	return mustDecode(t, doc).CheckMerge(p, rules, check)
}

// wantField fails t unless err is nil when field is "", or else a *limiter.FieldError
// on field that ok accepts.
func wantField(t *testing.T, err error, field string, ok func(*limiter.FieldError) bool) {
	t.Helper()
	var fe *limiter.FieldError
	switch {
	case field == "" && err != nil:
		t.Errorf("CheckMerge: %v, want nil", err)
	case field != "" && (!errors.As(err, &fe) || fe.Field != field || !ok(fe)):
		t.Errorf("CheckMerge: %v, want a FieldError on %s", err, field)
	}
}

// CheckMerge compiles the merge a request can meet: a tenant valid on its own whose
// plan, override or key's own rules make a ninth tenant-wide rule is refused, naming
// rules and the count; a rule of the same name replaces, and makes no ninth.
func TestCheckMergeCountsTheMergedRules(t *testing.T) {
	plan := &tenant.Plan{ID: "pro", Rules: mustDecode(t, `{"id": "pro", "rules": [`+rulesJSON("p", 2, 100)+`]}`).Rules}
	ninth := `{"name": "r9", "algorithm": "fixed_window", "limit": 5, "period": "1h"}`
	for _, tt := range []struct {
		name, tenant, keyRules string
		want                   string // the error's field; "" for none
	}{
		{"eight of its own", `{"id": "a", "rules": [` + rulesJSON("r", 8, 100) + `]}`, "", ""},
		{"an override adds a ninth", `{"id": "a", "rules": [` + rulesJSON("r", 8, 100) + `], "overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [` + ninth + `]}]}`, "", "rules"},
		{"an ended override adds a ninth", `{"id": "a", "rules": [` + rulesJSON("r", 8, 100) + `], "overrides": [{"until": "2001-01-01T00:00:00Z", "rules": [` + ninth + `]}]}`, "", "rules"},
		{"an override replaces", `{"id": "a", "rules": [` + rulesJSON("r", 8, 100) + `], "overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [` + rulesJSON("r", 1, 5) + `]}]}`, "", ""},
		{"a key adds a ninth", `{"id": "a", "rules": [` + rulesJSON("r", 8, 100) + `]}`, ninth, "rules"},
		{"the plan adds the seventh and eighth", `{"id": "a", "plan": "pro", "rules": [` + rulesJSON("r", 6, 100) + `]}`, "", ""},
		{"the plan and a key make nine", `{"id": "a", "plan": "pro", "rules": [` + rulesJSON("r", 6, 100) + `]}`, ninth, "rules"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantField(t, checkMerge(t, tt.tenant, tt.keyRules, plan, nil), tt.want,
				func(fe *limiter.FieldError) bool { return fe.Value == "9" })
		})
	}
}

// CheckMerge runs the counter store's check on the tenant's rules (its overrides'
// included), its plan's and the key's own, naming each by its path, and refuses a
// tenant naming a plan it is not given.
func TestCheckMergeChecksEverySource(t *testing.T) {
	big := `{"name": "big", "algorithm": "sliding_log", "limit": 5000, "period": "1m"}`
	small := `{"name": "small", "algorithm": "fixed_window", "limit": 10, "period": "1s"}`
	refuse := func(r limiter.Rule) error {
		if r.Limit > 1000 {
			return &limiter.FieldError{Field: "limit", Reason: "at most 1000 here"}
		}
		return nil
	}
	plan := &tenant.Plan{ID: "pro", Rules: mustRules(t, big)}
	for _, tt := range []struct {
		name, tenant, keyRules string
		plan                   *tenant.Plan
		want                   string
	}{
		{"an override", `{"id": "a", "rules": [` + small + `], "overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [` + big + `]}]}`, "", nil, "overrides[0].rules[0].limit"},
		{"the plan", `{"id": "a", "plan": "pro"}`, "", plan, "plan.rules[0].limit"},
		{"a key", `{"id": "a", "rules": [` + small + `]}`, big, nil, "key_rules[0].limit"},
		{"an unknown plan", `{"id": "a", "plan": "free"}`, "", plan, "plan"},
		{"nothing refused", `{"id": "a", "rules": [` + small + `]}`, small, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantField(t, checkMerge(t, tt.tenant, tt.keyRules, tt.plan, refuse), tt.want,
				func(*limiter.FieldError) bool { return true })
		})
	}
}

// CheckMerge refuses a route whose cost exceeds a tenant-wide rule its requests can
// meet, whichever source the rule comes from, naming the route's cost (or plan, for
// a route of the plan's alone) and, in the reason, the rule and its source.
func TestCheckMergeChecksRouteCosts(t *testing.T) {
	chat := `"routes": [{"method": "POST", "resource": "/chat", "cost": 5, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 50, "period": "1m"}]}]`
	tpm := func(limit int, scope string) string {
		return fmt.Sprintf(`{"name": "tpm", "algorithm": "fixed_window", "limit": %d, "period": "1m", "scope": "%s"}`, limit, scope)
	}
	small := &tenant.Plan{ID: "small", Rules: mustDecode(t, `{"id": "small", "rules": [`+tpm(3, "tenant")+`]}`).Rules}
	chatPlan := mustDecode(t, `{"id": "chat", "rules": [`+tpm(100, "tenant")+`], `+chat+`}`)
	withRoute := &tenant.Plan{ID: "chat", Rules: chatPlan.Rules, Routes: chatPlan.Routes}
	override := func(limit int) string {
		return `, "overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [` + tpm(limit, "tenant") + `]}]`
	}
	for _, tt := range []struct {
		name, tenant, keyRules string
		plan                   *tenant.Plan
		field, source          string // the error's field, and the source its reason names; "" for none
	}{
		{"the plan's rule", `{"id": "a", "plan": "small", ` + chat + `}`, "", small, "routes[0].cost", `of plan "small"`},
		{"the tenant's rule over the plan's", `{"id": "a", "plan": "small", "rules": [` + tpm(10, "tenant") + `], ` + chat + `}`, "", small, "", ""},
		{"a key's own rule", `{"id": "a", "rules": [` + tpm(100, "key") + `], ` + chat + `}`, tpm(3, "key"), nil, "routes[0].cost", "of the key's own rules"},
		{"a key's rule named as a shared rule is left out", `{"id": "a", "rules": [` + tpm(100, "tenant") + `], ` + chat + `}`, tpm(3, "key"), nil, "", ""},
		{"an override's rule", `{"id": "a", "rules": [` + tpm(100, "tenant") + `], ` + chat + override(3) + `}`, "", nil, "routes[0].cost", "of overrides[0]"},
		{"an override that fits", `{"id": "a", "rules": [` + tpm(100, "tenant") + `], ` + chat + override(5) + `}`, "", nil, "", ""},
		{"the plan's route", `{"id": "a", "plan": "chat"` + override(3) + `}`, "", withRoute, "plan", "of overrides[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantField(t, checkMerge(t, tt.tenant, tt.keyRules, tt.plan, nil), tt.field,
				func(fe *limiter.FieldError) bool {
					return strings.Contains(fe.Reason, `rule "tpm" `+tt.source+" holds 3")
				})
		})
	}
}
