package apply_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

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
