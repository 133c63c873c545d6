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
