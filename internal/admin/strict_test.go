package admin_test

import (
	"strings"
	"testing"
)

// TestStrictJSON pins what encoding/json took silently: a known name in another case
// (201 for {"Rules": [{"ALGORITHM": ...}]}), a duplicate name (the last one kept:
// "limit": 1, "limit": 1000000 stored a million), and invalid UTF-8 (stored as
// U+FFFD). Each is a 422 naming the field, and the stores keep what they held.
func TestStrictJSON(t *testing.T) {
	rule := `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`
	tests := []struct {
		name, method, body, field, detail string
	}{
		{"tenant name in capitals", "PUT", `{"Rules": [` + rule + `]}`, "Rules", `did you mean "rules"?`},
		{"rule name in capitals", "PUT", `{"rules": [{"ALGORITHM": "fixed_window", "limit": 1, "period": "1s"}]}`, "rules[0].ALGORITHM", `did you mean "algorithm"?`},
		{"route rule name in another case", "PUT", `{"rules": [` + rule + `], "routes": [{"method": "GET", "resource": "/a", "rules": [{"algorithm": "fixed_window", "Limit": 1, "period": "1s"}]}]}`, "routes[0].rules[0].Limit", `did you mean "limit"?`},
		{"duplicate limit", "PUT", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "limit": 1000000, "period": "1s"}]}`, "rules[0].limit", "appears twice"},
		{"duplicate tenant member", "PUT", `{"rules": [` + rule + `], "shadow": false, "shadow": true}`, "shadow", "appears twice"},
		{"duplicate metadata name", "PUT", `{"rules": [` + rule + `], "metadata": {"team": "a", "team": "b"}}`, `metadata["team"]`, "appears twice"},
		{"invalid UTF-8 in metadata", "PUT", `{"rules": [` + rule + `], "metadata": {"team": "caf` + "\xe9" + `"}}`, `metadata["team"]`, "not valid UTF-8"},
		{"lone surrogate in metadata", "PUT", `{"rules": [` + rule + `], "metadata": {"team": "\ud800"}}`, `metadata["team"]`, "not valid UTF-8"},
		{"invalid UTF-8 in a name", "PUT", `{"rules": [` + rule + `], "metadata": {"t` + "\xff" + `": "a"}}`, `metadata["t\ufffd"]`, "not valid UTF-8"},
		{"PATCH name in capitals", "PATCH", `{"Shadow": true}`, "Shadow", `did you mean "shadow"?`},
		{"PATCH duplicate", "PATCH", `{"timezone": "UTC", "timezone": "Asia/Tokyo"}`, "timezone", "appears twice"},
	}
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		before := e.snapshot()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				path, headers := "/tenants/new", []string(nil)
				if tt.method == "PATCH" {
					path, headers = "/tenants/acme", []string{"Content-Type", patchType, "If-Match", `"1"`}
				}
				p := e.do(tt.method, path, tt.body, headers...).problem(t, 422, "invalid-field", tt.field)
				if !strings.Contains(p.Detail, tt.detail) {
					t.Errorf("detail %q, want it to say %q", p.Detail, tt.detail)
				}
				if after := e.snapshot(); after != before {
					t.Fatalf("the request changed the stores:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	})
}

// TestStrictJSONKeepsTheClientsOwnNames: metadata names are the client's, in any case
// ("ID" is not the tenant's "id"), and U+FFFD written as itself or escaped is valid.
func TestStrictJSONKeepsTheClientsOwnNames(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	body := `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "metadata": {"ID": "x", "Rules": "y", "a": "\ufffd", "b": "` + "\uFFFD" + `"}}`
	got := e.do("PUT", "/tenants/new", body).want(t, 201).tenant(t)
	if got.Metadata["ID"] != "x" || got.Metadata["Rules"] != "y" || got.Metadata["a"] != "\uFFFD" || got.Metadata["b"] != "\uFFFD" {
		t.Errorf("metadata %q", got.Metadata)
	}
}

// TestUnknownRuleFieldNamesScope: the unknown-field message of a rule lists every
// member a rule has, scope included.
func TestUnknownRuleFieldNamesScope(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	p := e.do("PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s", "scop": "ip"}]}`).problem(t, 422, "invalid-field", "rules[0].scop")
	for _, name := range []string{"name", "algorithm", "limit", "period", "burst", "anchor", "scope"} {
		if !strings.Contains(p.Detail, name) {
			t.Errorf("detail %q does not name %s", p.Detail, name)
		}
	}
}
