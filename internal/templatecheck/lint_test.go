package templatecheck

import (
	"os/exec"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// cfn-lint (a pip package, on the project's CI image, with the SAM translator it runs
// first) checks what the tests above do not: the SAM transform itself (an authorizer or
// gateway response SAM refuses), property types and allowed values against the
// CloudFormation schemas. It is an extra: a machine with only Go, npm and apt has no
// cfn-lint (Debian does not package it), so without it the test skips, even under CI;
// the Go checks above always run.
func TestCfnLint(t *testing.T) {
	path, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Skipf("cfn-lint is not on PATH (pip install cfn-lint to run this check): %v", err)
	}
	cmd := exec.Command(path, "--format", "parseable", "template.yaml")
	cmd.Dir = testenv.ModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cfn-lint template.yaml: %v\n%s", err, out)
	}
}
