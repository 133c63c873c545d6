package admin_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// A third-party linter finds nothing wrong in docs/openapi.yaml: Redocly's CLI (the
// npm package @redocly/cli that internal/testenv/node pins, installed by
// scripts/services.sh) with its recommended rules, warnings included. Before, it
// reported 11 errors (security-defined: the API is SigV4-signed and declared no
// security scheme) and 3 warnings (tags without a description). Like the other tests
// of installed tools it skips without them, and fails under CI.
func TestRedoclyRecommendedRules(t *testing.T) {
	modules := testenv.NodeModules(t)
	cli := filepath.Join(modules, "@redocly", "cli", "bin", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("@redocly/cli is not installed in %s (scripts/services.sh installs internal/testenv/node): %v", modules, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: %v", err)
	}
	cmd := exec.Command(node, cli, "lint", "--extends", "recommended", "--format", "json", "docs/openapi.yaml")
	cmd.Dir = testenv.ModuleRoot(t)
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var report struct {
		Totals   struct{ Errors, Warnings int }
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string
			Message  string
			Location []struct{ Pointer string }
		}
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("redocly lint: %v (%v)\nstdout %s\nstderr %s", err, runErr, out, stderr.Bytes())
	}
	for _, p := range report.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
	}
	if runErr != nil || report.Totals.Errors+report.Totals.Warnings > 0 {
		t.Fatalf("redocly lint --extends recommended docs/openapi.yaml: %v, %d errors, %d warnings", runErr, report.Totals.Errors, report.Totals.Warnings)
	}
}
