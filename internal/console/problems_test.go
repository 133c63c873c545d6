package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/console"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// TestDevEndpointProblemsAreTheAdminAPIs pins the bug of the dev endpoints' titles
// ("Unprocessable Entity" where the admin API says "Invalid field"): each problem of
// the traffic and simulate endpoints has the type, title, status and headers that the
// admin API gives the same problem.
func TestDevEndpointProblemsAreTheAdminAPIs(t *testing.T) {
	api, err := admin.New(admin.Config{Tenants: memory.NewTenants(), Counters: memory.NewCounters(memory.CountersConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	gateway := http.StripPrefix("/admin", api)
	h := console.Mount(gateway, console.NewTraffic(nil))
	tests := []struct {
		name, slug                          string
		devMethod, devTarget, devBody       string
		adminMethod, adminTarget, adminBody string
	}{
		{"invalid-field", "invalid-field", "POST", console.SimulatePath, `{"rules": [], "trace": "1"}`,
			"PUT", "/admin/tenants/acme", `{"rulez": []}`},
		{"invalid-json", "invalid-json", "POST", console.SimulatePath, `{"rules": [`,
			"PUT", "/admin/tenants/acme", `{"rules": [`},
		{"invalid-parameter", "invalid-parameter", "GET", console.TrafficPath + "?seconds=0", "",
			"GET", "/admin/tenants?limit=0", ""},
		{"method-not-allowed", "method-not-allowed", "GET", console.SimulatePath, "",
			"DELETE", "/admin/tenants", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev, devRec := problem(t, h, tt.devMethod, tt.devTarget, tt.devBody)
			want, wantRec := problem(t, h, tt.adminMethod, tt.adminTarget, tt.adminBody)
			if want.Type != admin.ProblemTypeBase+tt.slug {
				t.Fatalf("the admin API answered %+v, want a %s problem", want, tt.slug)
			}
			if dev.Type != want.Type || dev.Title != want.Title || dev.Status != want.Status || devRec.Code != wantRec.Code {
				t.Errorf("dev endpoint: %d %+v\nadmin API:    %d %+v", devRec.Code, dev, wantRec.Code, want)
			}
			for _, name := range []string{"Content-Type", "Cache-Control"} {
				if devRec.Header().Get(name) != wantRec.Header().Get(name) {
					t.Errorf("%s %q, the admin API's %q", name, devRec.Header().Get(name), wantRec.Header().Get(name))
				}
			}
			if dev.Instance != strings.Split(tt.devTarget, "?")[0] || dev.Detail == "" {
				t.Errorf("instance %q, detail %q", dev.Instance, dev.Detail)
			}
		})
	}
}

func problem(t *testing.T, h http.Handler, method, target, body string) (admin.Problem, *httptest.ResponseRecorder) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var p admin.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("%s %s: %d %q: %v", method, target, rec.Code, rec.Body, err)
	}
	return p, rec
}

// TestSimulateEndpointReadsStrictJSON: the simulate endpoint reads its body as the
// admin API does: a name in another case ("Trace", a rule's "LIMIT"), a name twice and
// invalid UTF-8 are a 422 naming the member.
func TestSimulateEndpointReadsStrictJSON(t *testing.T) {
	h := console.Mount(http.NotFoundHandler(), console.NewTraffic(nil))
	rule := `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`
	for body, field := range map[string]string{
		`{"rules": [` + rule + `], "Trace": "1"}`:                                                          "Trace",
		`{"rules": [{"algorithm": "fixed_window", "LIMIT": 1, "period": "1s"}], "trace": "1"}`:             "rules[0].LIMIT",
		`{"rules": [{"algorithm": "fixed_window", "limit": 1, "limit": 9, "period": "1s"}], "trace": "1"}`: "rules[0].limit",
		`{"rules": [` + rule + `], "trace": "1,caf` + "\xe9" + `"}`:                                        "trace",
	} {
		p, rec := problem(t, h, "POST", console.SimulatePath, body)
		if rec.Code != 422 || p.Type != admin.ProblemTypeBase+"invalid-field" || p.Field != field {
			t.Errorf("%s: %d %+v, want a 422 naming %s", body, rec.Code, p, field)
		}
	}
	if _, rec := problem(t, h, "POST", console.SimulatePath, `{"rules": [`+rule+`], "trace": "1"}`); rec.Code != 200 {
		t.Errorf("a good body: %d %s", rec.Code, rec.Body)
	}
}
