package admin_test

import (
	"net/http"
	"strings"
	"testing"
)

const patchType = "application/merge-patch+json"

// TestErrors sends one request of every error class and checks the problem it gets,
// the field it names, and that the stores hold exactly what they held before.
func TestErrors(t *testing.T) {
	big := `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "metadata": {"x": "` + strings.Repeat("a", 64<<10) + `"}}`
	tests := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		slug, field              string
		allow                    string // the Allow header of a 405
	}{
		{"unknown zone", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "day"}], "timezone": "Mars/Olympus_Mons"}`, nil, 422, "invalid-field", "timezone", ""},
		{"Local zone", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "day"}], "timezone": "Local"}`, nil, 422, "invalid-field", "timezone", ""},
		{"bad rule limit", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 0, "period": "1s"}]}`, nil, 422, "invalid-field", "rules[0].limit", ""},
		{"calendar bucket", "PUT", "/tenants/new", `{"rules": [{"algorithm": "token_bucket", "limit": 5, "period": "day"}]}`, nil, 422, "invalid-field", "rules[0].period", ""},
		{"bad route rule", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "routes": [{"method": "GET", "resource": "/a", "rules": [{"algorithm": "sliding_window", "limit": 1, "period": "fortnight"}]}]}`, nil, 422, "invalid-field", "routes[0].rules[0].period", ""},
		{"unknown field", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "rulez": []}`, nil, 422, "invalid-field", "rulez", ""},
		{"unknown rule field", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s", "colour": "red"}]}`, nil, 422, "invalid-field", "rules[0].colour", ""},
		{"no rules", "PUT", "/tenants/new", `{"timezone": "UTC"}`, nil, 422, "invalid-field", "rules", ""},
		{"fractional limit", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1.5, "period": "1s"}]}`, nil, 422, "invalid-field", "rules[0].limit", ""},
		{"body id differs", "PUT", "/tenants/new", `{"id": "other", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}]}`, nil, 422, "invalid-field", "id", ""},
		{"invalid path id", "PUT", "/tenants/New", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}]}`, nil, 422, "invalid-field", "id", ""},
		{"not an object", "PUT", "/tenants/new", `[1, 2]`, nil, 422, "invalid-field", "", ""},
		{"malformed JSON", "PUT", "/tenants/new", `{"rules": [`, nil, 400, "invalid-json", "", ""},
		{"trailing data", "PUT", "/tenants/new", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}]} {}`, nil, 400, "invalid-json", "", ""},
		{"empty body", "PUT", "/tenants/new", "", []string{"Content-Type", "application/json"}, 400, "invalid-json", "", ""},
		{"body over 64 KiB", "PUT", "/tenants/new", big, nil, 413, "body-too-large", "", ""},
		{"text/plain", "PUT", "/tenants/new", acme, []string{"Content-Type", "text/plain"}, 415, "unsupported-media-type", "Content-Type", ""},
		{"latin-1", "PUT", "/tenants/new", acme, []string{"Content-Type", "application/json; charset=iso-8859-1"}, 415, "unsupported-media-type", "Content-Type", ""},
		{"merge patch on PUT", "PUT", "/tenants/new", acme, []string{"Content-Type", patchType}, 415, "unsupported-media-type", "Content-Type", ""},
		{"exists", "PUT", "/tenants/acme", acme, nil, 409, "already-exists", "", ""},
		{"stale PUT", "PUT", "/tenants/acme", acme, []string{"If-Match", `"9"`}, 412, "precondition-failed", "If-Match", ""},
		{"weak If-Match", "PUT", "/tenants/acme", acme, []string{"If-Match", `W/"1"`}, 412, "precondition-failed", "If-Match", ""},
		{"If-Match without quotes", "PUT", "/tenants/acme", acme, []string{"If-Match", `1`}, 400, "invalid-parameter", "If-Match", ""},
		{"If-Match on nothing", "PUT", "/tenants/new", acme, []string{"If-Match", `*`}, 404, "not-found", "", ""},
		{"PATCH without If-Match", "PATCH", "/tenants/acme", `{"shadow": true}`, []string{"Content-Type", patchType}, 428, "precondition-required", "If-Match", ""},
		{"stale PATCH", "PATCH", "/tenants/acme", `{"shadow": true}`, []string{"Content-Type", patchType, "If-Match", `"2"`}, 412, "precondition-failed", "If-Match", ""},
		{"PATCH as JSON", "PATCH", "/tenants/acme", `{"shadow": true}`, []string{"Content-Type", "application/json", "If-Match", `"1"`}, 415, "unsupported-media-type", "Content-Type", ""},
		{"PATCH unknown zone", "PATCH", "/tenants/acme", `{"timezone": "Europe/Atlantis"}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 422, "invalid-field", "timezone", ""},
		{"PATCH bad rule", "PATCH", "/tenants/acme", `{"rules": [{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "anchor": "first_request"}]}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 422, "invalid-field", "rules[0].anchor", ""},
		{"PATCH removes the rules", "PATCH", "/tenants/acme", `{"rules": null}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 422, "invalid-field", "rules", ""},
		{"PATCH unknown field", "PATCH", "/tenants/acme", `{"colour": "red"}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 422, "invalid-field", "colour", ""},
		{"PATCH the id", "PATCH", "/tenants/acme", `{"id": "other"}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 422, "invalid-field", "id", ""},
		{"PATCH not an object", "PATCH", "/tenants/acme", `"x"`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 422, "invalid-field", "", ""},
		{"PATCH unknown tenant", "PATCH", "/tenants/nobody", `{"shadow": true}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, 404, "not-found", "", ""},
		{"GET unknown tenant", "GET", "/tenants/nobody", "", nil, 404, "not-found", "", ""},
		{"DELETE unknown tenant", "DELETE", "/tenants/nobody", "", []string{"If-Match", `"1"`}, 404, "not-found", "", ""},
		{"unknown route", "GET", "/nope", "", nil, 404, "not-found", "", ""},
		{"unknown sub-route", "GET", "/tenants/acme/nope", "", nil, 404, "not-found", "", ""},
		{"empty id", "GET", "/tenants/", "", nil, 404, "not-found", "", ""},
		{"POST a tenant", "POST", "/tenants/acme", acme, nil, 405, "method-not-allowed", "", "GET, PUT, PATCH, DELETE"},
		{"DELETE all tenants", "DELETE", "/tenants", "", nil, 405, "method-not-allowed", "", "GET"},
		{"PUT a key", "PUT", "/tenants/acme/keys/abcdefgh", "", nil, 405, "method-not-allowed", "", "GET, DELETE"},
		{"GET a reset", "GET", "/tenants/acme/reset", "", nil, 405, "method-not-allowed", "", "POST"},
		{"limit 0", "GET", "/tenants?limit=0", "", nil, 400, "invalid-parameter", "limit", ""},
		{"limit 101", "GET", "/tenants?limit=101", "", nil, 400, "invalid-parameter", "limit", ""},
		{"limit text", "GET", "/tenants?limit=ten", "", nil, 400, "invalid-parameter", "limit", ""},
		{"foreign page token", "GET", "/tenants?page_token=bm9wZQ", "", nil, 400, "invalid-parameter", "page_token", ""},
		{"unknown parameter", "GET", "/tenants?limt=5", "", nil, 400, "invalid-parameter", "limt", ""},
		{"repeated parameter", "GET", "/tenants?limit=5&limit=6", "", nil, 400, "invalid-parameter", "limit", ""},
		{"keys of nobody", "GET", "/tenants/nobody/keys", "", nil, 404, "not-found", "", ""},
		{"key for nobody", "POST", "/tenants/nobody/keys", "", nil, 404, "not-found", "", ""},
		{"key options", "POST", "/tenants/acme/keys", `{"name": "ci"}`, nil, 422, "invalid-field", "name", ""},
		{"key body as text", "POST", "/tenants/acme/keys", `x`, []string{"Content-Type", "text/plain"}, 415, "unsupported-media-type", "Content-Type", ""},
		{"unknown key", "GET", "/tenants/acme/keys/zzzzzzzz", "", nil, 404, "not-found", "", ""},
		{"revoke unknown key", "DELETE", "/tenants/acme/keys/zzzzzzzz", "", nil, 404, "not-found", "", ""},
		{"revoke with a bad purge", "DELETE", "/tenants/acme/keys/zzzzzzzz?purge=yes", "", nil, 400, "invalid-parameter", "purge", ""},
		{"usage of a malformed key id", "GET", "/tenants/acme/usage?key_id=ABC", "", nil, 400, "invalid-parameter", "key_id", ""},
		{"usage of an unknown key", "GET", "/tenants/acme/usage?key_id=zzzzzzzz", "", nil, 404, "not-found", "", ""},
		{"usage of a bad IP", "GET", "/tenants/acme/usage?ip=1.2.3", "", nil, 400, "invalid-parameter", "ip", ""},
		{"usage of nobody", "GET", "/tenants/nobody/usage?key_id=abcdefgh", "", nil, 404, "not-found", "", ""},
		{"reset nobody", "POST", "/tenants/nobody/reset", "", nil, 404, "not-found", "", ""},
		{"stale reset", "POST", "/tenants/acme/reset", "", []string{"If-Match", `"3"`}, 412, "precondition-failed", "If-Match", ""},
		{"reset with options", "POST", "/tenants/acme/reset", `{"keys": true}`, nil, 422, "invalid-field", "keys", ""},
		{"reset with junk", "POST", "/tenants/acme/reset", `{} x`, nil, 400, "invalid-json", "", ""},
	}
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		before := e.snapshot()
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := e.do(tt.method, tt.path, tt.body, tt.headers...)
				p := r.problem(t, tt.status, tt.slug, tt.field)
				if p.Instance != strings.Split(tt.path, "?")[0] {
					t.Errorf("instance %q", p.Instance)
				}
				if tt.allow != "" && r.header.Get("Allow") != tt.allow {
					t.Errorf("Allow %q, want %q", r.header.Get("Allow"), tt.allow)
				}
				if tt.status == 415 && tt.method == "PATCH" && r.header.Get("Accept-Patch") != patchType {
					t.Errorf("Accept-Patch %q", r.header.Get("Accept-Patch"))
				}
				if after := e.snapshot(); after != before {
					t.Fatalf("the request changed the stores:\nbefore %s\nafter  %s", before, after)
				}
			})
		}
	})
}

// TestProblemNamesNestedFields checks paths deep in the tenant and in metadata.
func TestProblemNamesNestedFields(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	r := e.do("PUT", "/tenants/acme", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "routes": [
		{"method": "GET", "resource": "/a", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}]},
		{"method": "GET", "resource": "/b", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}, {"algorithm": "fixed_window", "limit": 2, "period": "1s"}]}]}`)
	p := r.problem(t, 422, "invalid-field", "routes[1].rules[1].name")
	if !strings.Contains(p.Detail, "already used") || p.Value != `"fixed_window"` {
		t.Errorf("problem %+v", p)
	}
	r = e.do("PUT", "/tenants/acme", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "metadata": {"bad key": "v"}}`)
	r.problem(t, 422, "invalid-field", `metadata["bad key"]`)
	if e.snapshot() != "null" {
		t.Errorf("stored %s", e.snapshot())
	}
	// The reason and the field are both in the answer, and nothing else of the request.
	r = e.do("PUT", "/tenants/acme", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "timezone": "Mars/Base"}`)
	p = r.problem(t, 422, "invalid-field", "timezone")
	if p.Value != `"Mars/Base"` || !strings.Contains(p.Detail, "IANA") {
		t.Errorf("problem %+v", p)
	}
}

func TestMethodNotAllowedHeaders(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	r := e.do(http.MethodOptions, "/tenants/acme/usage", "")
	r.problem(t, 405, "method-not-allowed", "")
	if r.header.Get("Allow") != "GET" {
		t.Errorf("Allow %q", r.header.Get("Allow"))
	}
}
