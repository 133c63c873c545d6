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

func mustDecode(t *testing.T, doc string) tenant.Tenant {
	t.Helper()
	tn, err := tenant.Decode([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return tn
}

func mustRules(t *testing.T, list string) []limiter.Rule {
	t.Helper()
	tn := mustDecode(t, `{"id": "k", "rules": [`+list+`]}`)
	for i := range tn.Rules {
		tn.Rules[i].Scope = limiter.ScopeKey
	}
	return tn.Rules
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
			tn := mustDecode(t, tt.tenant)
			var keyRules []limiter.Rule
			if tt.keyRules != "" {
				keyRules = mustRules(t, tt.keyRules)
			}
			err := tn.CheckMerge(plan, keyRules, nil)
			var fe *limiter.FieldError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckMerge: %v, want nil", err)
			case tt.want != "" && (!errors.As(err, &fe) || fe.Field != tt.want || fe.Value != "9"):
				t.Errorf("CheckMerge: %v, want a FieldError on %s of value 9", err, tt.want)
			}
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
			var keyRules []limiter.Rule
			if tt.keyRules != "" {
				keyRules = mustRules(t, tt.keyRules)
			}
			err := mustDecode(t, tt.tenant).CheckMerge(tt.plan, keyRules, refuse)
			var fe *limiter.FieldError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckMerge: %v, want nil", err)
			case tt.want != "" && (!errors.As(err, &fe) || fe.Field != tt.want):
				t.Errorf("CheckMerge: %v, want a FieldError on %s", err, tt.want)
			}
		})
	}
}
