package apply_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

// TestProbeRouteCostOnAPlanExportsAndApplies: a route with a cost above 1 on a plan,
// and on a tenant that takes its tenant-wide rules from a plan, is valid (the admin
// API stores both: the costs are within every rule the routes' requests meet), so
// export must write them and applying the export must change nothing
// (docs/reference.md, "Limits as code": "applying an export changes nothing").
// Found by the red-team review: export failed with "cost 5 exceeds the capacity 1 of
// rule \"placeholder\"", and apply refused the same objects in a file.
func TestProbeRouteCostOnAPlanExportsAndApplies(t *testing.T) {
	s := newServer(t)
	if code, body := s.send(t, http.MethodPut, "/plans/llm", "", `{"rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 100000, "period": "1m"}],
		"routes": [{"method": "POST", "resource": "/embed", "cost": 500, "rules": [{"name": "embed", "algorithm": "fixed_window", "limit": 10000, "period": "1m"}]}]}`); code != http.StatusCreated {
		t.Fatalf("PUT /plans/llm: %d %s", code, body)
	}
	s.putTenant(t, `{"id": "chatco", "plan": "llm",
		"routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "sliding_window", "limit": 50000, "period": "1m"}]}]}`)
	c := s.client(t)
	data, err := apply.Export(context.Background(), c, false)
	if err != nil {
		t.Fatalf("export of a plan and a tenant the admin API accepted: %v", err)
	}
	state, err := apply.Parse("export.yaml", data)
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, data)
	}
	var out bytes.Buffer
	s.writes.Store(0)
	if err := apply.Run(context.Background(), c, state, true, false, &out); err != nil {
		t.Fatal(err)
	}
	if n := s.writes.Load(); n != 0 || out.String() != "0 to add, 0 to change, 0 to delete\n" {
		t.Errorf("applying the export sent %d writes, want 0:\n%s", n, out.String())
	}
}

// TestProbeTenantThatDoesNotMergeWithItsPlanWritesNothing: "The whole file is
// validated first, with the checks the admin API makes ... a problem is an error
// naming the object and the field ... and nothing is written" (docs/reference.md,
// "Limits as code"). A tenant whose rules and its plan's make more than the 8 a set
// holds is refused by the admin API (422), so apply must refuse the file before any
// write. Found by the red-team review: apply writes the plan, then the tenant's PUT
// answers 422 ("1 of 2 changes were written before it").
func TestProbeTenantThatDoesNotMergeWithItsPlanWritesNothing(t *testing.T) {
	s := newServer(t)
	file := `plans:
  - id: wide
    rules: [{name: a1, algorithm: fixed_window, limit: 100, period: 1m}, {name: a2, algorithm: fixed_window, limit: 100, period: 2m},
            {name: a3, algorithm: fixed_window, limit: 100, period: 3m}, {name: a4, algorithm: fixed_window, limit: 100, period: 4m},
            {name: a5, algorithm: fixed_window, limit: 100, period: 5m}]
tenants:
  - id: widet
    plan: wide
    rules: [{name: b1, algorithm: fixed_window, limit: 100, period: 1h}, {name: b2, algorithm: fixed_window, limit: 100, period: 2h},
            {name: b3, algorithm: fixed_window, limit: 100, period: 3h}, {name: b4, algorithm: fixed_window, limit: 100, period: 4h}]
`
	var out bytes.Buffer
	err := apply.Run(context.Background(), s.client(t), parse(t, "limits.yaml", file), false, false, &out)
	if err == nil {
		t.Fatal("a tenant of 9 merged rules was applied")
	}
	if n := s.writes.Load(); n != 0 {
		t.Errorf("%d writes before the error (%v); want none:\n%s", n, err, out.String())
	}
}
