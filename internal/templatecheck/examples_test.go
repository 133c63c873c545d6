package templatecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// The example stacks of examples/existing-api, which import template.yaml's exports.
const (
	restExample = "examples/existing-api/template.yaml"
	httpExample = "examples/existing-api/httpapi.yaml"
)

// exampleStack is how the examples are evaluated: their EdgelimitStack parameter names
// the stack that stackFor deploys template.yaml as.
var exampleStack = Stack{Name: "orders-test", Region: "us-east-1", Account: "123456789012",
	Parameters: map[string]string{"EdgelimitStack": stackFor(nil).Name}}

// loadExample parses the example template at the repository-relative path.
func loadExample(t *testing.T, path string) map[string]any {
	t.Helper()
	tmpl, err := ParseFile(filepath.Join(testenv.ModuleRoot(t), path))
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// The REST API example holds the main template's promises on an API of its own: the
// imported authorizer is the default on every route, a REQUEST authorizer on the
// x-api-key header with caching off; ACCESS_DENIED is template.yaml's 429 response and
// UNAUTHORIZED its 401 naming the key header; the
// authorizer's resource policy lets the API invoke it; every reference resolves.
func TestExistingAPIExample(t *testing.T) {
	ex, main := loadExample(t, restExample), load(t)
	api := limitedAPI(t, ex)
	name := asString(dig(api.Properties, "Auth", "DefaultAuthorizer"))
	authorizer := asMap(dig(api.Properties, "Auth", "Authorizers", name))
	identity := asMap(authorizer["Identity"])
	if authorizer["FunctionPayloadType"] != "REQUEST" || identity["ReauthorizeEvery"] != 0 ||
		!slices.Equal(asStrings(identity["Headers"]), []string{apiKeyHeader}) {
		t.Errorf("%s.%s: %v, want a REQUEST authorizer on %s with ReauthorizeEvery 0", api.ID, name, authorizer, apiKeyHeader)
	}
	arn := imported(t, ex, main, authorizer["FunctionArn"])
	if arn != "AuthorizerFunctionArn" {
		t.Errorf("%s.%s: FunctionArn imports %q, want the edgelimit stack's AuthorizerFunctionArn", api.ID, name, arn)
	}
	got, want := accessDenied(t, ex, api.ID), accessDenied(t, main, limitedAPI(t, main).ID)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: ACCESS_DENIED = %v, want template.yaml's %v", api.ID, got, want)
	}
	unauthorized := func(tmpl map[string]any) any {
		return dig(limitedAPI(t, tmpl).Properties, "GatewayResponses", "UNAUTHORIZED")
	}
	if got, want := unauthorized(ex), unauthorized(main); want == nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: UNAUTHORIZED = %v, want template.yaml's %v", api.ID, got, want)
	}
	for path, ops := range asMap(dig(api.Properties, "DefinitionBody", "paths")) {
		for method, op := range asMap(ops) {
			if sec, ok := asMap(op)["security"]; ok {
				t.Errorf("%s %s sets security %v: it would replace the default authorizer", method, path, sec)
			}
		}
	}
	checkInvokePermission(t, ex, main, api.ID)
	checkReferences(t, ex)
}

// checkInvokePermission: a Lambda permission on the imported authorizer lets apiID's
// authorizers, and nothing else, invoke it.
func checkInvokePermission(t *testing.T, ex, main map[string]any, apiID string) {
	t.Helper()
	for _, p := range resources(t, ex, "AWS::Lambda::Permission") {
		if imported(t, ex, main, p.Properties["FunctionName"]) != "AuthorizerFunctionArn" {
			continue
		}
		source, err := exampleStack.Evaluate(ex, p.Properties["SourceArn"])
		want := "arn:aws:execute-api:us-east-1:123456789012:" + exampleStack.ResourceName(apiID) + "/authorizers/*"
		if p.Properties["Action"] != "lambda:InvokeFunction" || p.Properties["Principal"] != "apigateway.amazonaws.com" || err != nil || source != want {
			t.Errorf("%s: %v (SourceArn %v, %v), want lambda:InvokeFunction by apigateway.amazonaws.com from %s", p.ID, p.Properties, source, err, want)
		}
		return
	}
	t.Errorf("no AWS::Lambda::Permission lets %s invoke the imported authorizer", apiID)
}

// The HTTP API example has no Lambda authorizer (it would answer 403 on a denial): its
// function is examples/httpapi, which the middleware limits, built by the example's
// Makefile, reading documented variables and the edgelimit stack's exported tables,
// with IAM statements on those tables alone and a log group whose logs expire.
func TestHTTPAPIExample(t *testing.T) {
	ex, main := loadExample(t, httpExample), load(t)
	for _, api := range resources(t, ex, "AWS::Serverless::HttpApi") {
		if a := dig(api.Properties, "Auth", "Authorizers"); a != nil {
			t.Errorf("%s has authorizers %v: a Lambda authorizer of an HTTP API answers 403, not 429", api.ID, a)
		}
	}
	fns := resources(t, ex, "AWS::Serverless::Function")
	if len(fns) != 1 {
		t.Fatalf("%s has %d functions, want the one of examples/httpapi", httpExample, len(fns))
	}
	fn := fns[0]
	checkExampleBuild(t, fn)
	vars := asMap(dig(fn.Properties, "Environment", "Variables"))
	for _, name := range sortedKeys(vars) {
		if !slices.Contains(documentedVariables, name) {
			t.Errorf("%s: environment variable %s is not a documented one", fn.ID, name)
		}
	}
	for v, output := range map[string]string{"EDGELIMIT_TENANTS_TABLE": "TenantsTableName", "EDGELIMIT_COUNTERS_TABLE": "CountersTableName"} {
		if got := imported(t, ex, main, vars[v]); got != output {
			t.Errorf("%s: %s imports %q, want the edgelimit stack's %s", fn.ID, v, got, output)
		}
	}
	for _, st := range statements(dig(fn.Properties, "Policies")) {
		var table string
		if sub := asList(dig(st, "Resource", "Fn::Sub")); len(sub) == 2 {
			table = imported(t, ex, main, asMap(sub[1])["Table"])
		}
		actions := asStrings(st["Action"])
		if table == "" || slices.ContainsFunc(actions, func(a string) bool { return strings.Contains(a, "*") }) {
			t.Errorf("%s: statement %v: want named actions on an imported table", fn.ID, st)
		}
	}
	groups := resources(t, ex, "AWS::Logs::LogGroup")
	if len(groups) != 1 || !reflect.DeepEqual(groups[0].Properties["LogGroupName"], map[string]any{"Fn::Sub": "/aws/lambda/${" + fn.ID + "}"}) {
		t.Errorf("%s: want one log group, /aws/lambda/${%s}, so that its logs expire: %v", httpExample, fn.ID, groups)
	}
	checkReferences(t, ex)
}

// checkExampleBuild: the function is built by the Makefile beside the example, whose
// build-<LogicalId> target builds examples/httpapi for arm64.
func checkExampleBuild(t *testing.T, fn resource) {
	t.Helper()
	if fn.Metadata["BuildMethod"] != "makefile" || fn.Properties["Runtime"] != "provided.al2023" ||
		!slices.Equal(asStrings(fn.Properties["Architectures"]), []string{"arm64"}) {
		t.Errorf("%s: %v %v, want a makefile-built arm64 provided.al2023 bootstrap", fn.ID, fn.Metadata, fn.Properties)
	}
	mk, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), filepath.Dir(httpExample), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	target := regexp.MustCompile(`(?m)^build-` + fn.ID + `:\n(\t.*\n)+`).Find(mk)
	if !strings.Contains(string(target), "GOARCH=arm64") || !strings.Contains(string(target), "./examples/httpapi") {
		t.Errorf("the example's Makefile has no build-%s target building ./examples/httpapi for arm64: %q", fn.ID, target)
	}
}

// imported returns the output of the main template whose export v, a value of the
// example ex, imports (ex evaluated as exampleStack), or "" when v imports nothing that
// template exports.
func imported(t *testing.T, ex, main map[string]any, v any) string {
	t.Helper()
	fn, arg, ok := intrinsic(v)
	if !ok || fn != "Fn::ImportValue" {
		return ""
	}
	name, err := exampleStack.Evaluate(ex, arg)
	if err != nil {
		t.Errorf("Fn::ImportValue %v: %v", arg, err)
		return ""
	}
	for output := range exportedOutputs {
		if name == exportName(stackFor(nil).Name, output) && dig(main, "Outputs", output, "Export") != nil {
			return output
		}
	}
	return ""
}

// checkReferences runs TestReferencesResolve's checks on tmpl's resources and outputs
// (the examples declare no conditions or rules).
func checkReferences(t *testing.T, tmpl map[string]any) {
	t.Helper()
	c := refChecker{t: t, tmpl: tmpl}
	for _, section := range []string{"Resources", "Outputs"} {
		for _, id := range sortedKeys(asMap(tmpl[section])) {
			var active []string
			if cond, ok := dig(tmpl, section, id, "Condition").(string); ok {
				active = []string{cond}
			}
			c.walk(section+"."+id, dig(tmpl, section, id), active)
		}
	}
}

// cfn-lint, which runs the SAM transform first, finds nothing in the examples
// (TestCfnLint's check of template.yaml).
func TestCfnLintExamples(t *testing.T) {
	path, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Skipf("cfn-lint is not on PATH (pip install cfn-lint to run this check): %v", err)
	}
	for _, example := range []string{restExample, httpExample} {
		cmd := exec.Command(path, "--format", "parseable", example)
		cmd.Dir = testenv.ModuleRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("cfn-lint %s: %v\n%s", example, err, out)
		}
	}
}
