package templatecheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// Each function is an arm64 provided.al2023 "bootstrap" that `sam build` makes with the
// Makefile's build-<LogicalId> target, and every property is on the function itself:
// goformation, and readers like it, do not apply Globals.
func TestFunctionsAreMakefileBuiltArm64Bootstraps(t *testing.T) {
	tmpl := load(t)
	if _, ok := tmpl["Globals"]; ok {
		t.Error("template.yaml has Globals: put the properties on each function (goformation does not apply Globals)")
	}
	root := testenv.ModuleRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	fns := resources(t, tmpl, "AWS::Serverless::Function")
	var ids []string
	for _, fn := range fns {
		ids = append(ids, fn.ID)
		t.Run(fn.ID, func(t *testing.T) {
			p := fn.Properties
			if got := p["Runtime"]; got != "provided.al2023" {
				t.Errorf("Runtime = %v, want provided.al2023", got)
			}
			if got := asStrings(p["Architectures"]); !slices.Equal(got, []string{"arm64"}) {
				t.Errorf("Architectures = %v, want [arm64]", p["Architectures"])
			}
			if got := p["Handler"]; got != "bootstrap" {
				t.Errorf("Handler = %v, want bootstrap", got)
			}
			if got := fn.Metadata["BuildMethod"]; got != "makefile" {
				t.Errorf("Metadata.BuildMethod = %v, want makefile", got)
			}
			// SAM runs make in (a copy of) CodeUri: the Makefile must be there, with the target.
			codeURI := asString(p["CodeUri"])
			if _, err := os.Stat(filepath.Join(root, codeURI, "Makefile")); codeURI == "" || err != nil {
				t.Errorf("CodeUri = %q: want the folder holding the Makefile", codeURI)
			}
			target := regexp.MustCompile(`(?m)^build-` + regexp.QuoteMeta(fn.ID) + `:`)
			if !target.Match(makefile) {
				t.Errorf("the Makefile has no target build-%s", fn.ID)
			}
			if timeout, ok := p["Timeout"].(int); !ok || timeout < 1 || timeout > 30 {
				t.Errorf("Timeout = %v, want whole seconds from 1 to 30 (API Gateway waits at most 29 s)", p["Timeout"])
			}
		})
	}
	for _, want := range []string{authorizerFunction, adminFunction} {
		if !slices.Contains(ids, want) {
			t.Errorf("template.yaml has no AWS::Serverless::Function %s (has %v)", want, ids)
		}
	}
}
