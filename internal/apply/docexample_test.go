package apply_test

import (
	"os"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

// TestReferenceExample: the file in docs/reference.md, "Limits as code", parses as
// it says: one plan, one tenant on it, two keys, one of them revoked.
func TestReferenceExample(t *testing.T) {
	data, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## Limits as code: apply and export\n")
	_, block, ok2 := strings.Cut(section, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("no yaml block in the section Limits as code of docs/reference.md")
	}
	s, err := apply.Parse("limits.yaml", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Plans) != 1 || s.Tenants["acme"]["plan"] != "pro" || len(s.Keys) != 2 || s.Keys["p0w7zz1c"].Status != apply.KeyRevoked || s.Keys["k3x9q2ab"].Status != apply.KeyActive {
		t.Errorf("the example reads as %d plans, tenants %v, keys %v", len(s.Plans), s.Tenants, s.Keys)
	}
}
