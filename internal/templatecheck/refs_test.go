package templatecheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/testenv"
)

// The environment variables the functions read (internal/config, docs/reference.md's Configuration
// table), less the endpoint overrides that only local runs set. A name outside this
// list is a typo that Load would never see.
var documentedVariables = []string{
	config.EnvBackend, config.EnvTenantsTable, config.EnvCountersTable, config.EnvTenantsFile,
	config.EnvUpstashURL, config.EnvUpstashToken, config.EnvUpstashSecretARN,
	config.EnvUpstashLocking, config.EnvKeyHeader, config.EnvLatencyBudget,
	config.EnvConfigTTL, config.EnvHTTPAPIResponse, config.EnvFailMode,
	config.EnvAnonymousTenant, config.EnvUsageIdentifier, config.EnvLogLevel,
	config.EnvDefaultRules, config.EnvHotCounters, config.EnvHotThreshold, config.EnvHotLeaseTime,
	config.EnvRedisAddr, config.EnvRedisCluster, config.EnvRedisTLS, config.EnvRedisSecretARN,
	config.EnvReservationSecretARN,
}

func TestEnvironmentVariablesAreDocumented(t *testing.T) {
	tmpl := load(t)
	readme, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "docs/reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	var undocumented []string
	for _, fn := range resources(t, tmpl, "AWS::Serverless::Function") {
		vars := asMap(dig(fn.Properties, "Environment", "Variables"))
		if len(vars) == 0 {
			t.Errorf("%s has no environment variables", fn.ID)
		}
		for _, name := range sortedKeys(vars) {
			if !slices.Contains(documentedVariables, name) {
				t.Errorf("%s: environment variable %s is not a documented one (%v)", fn.ID, name, documentedVariables)
			}
			if !strings.Contains(string(readme), "`"+name+"`") && !slices.Contains(undocumented, name) {
				undocumented = append(undocumented, name)
			}
		}
		checkBackendVariables(t, fn, vars)
	}
	if len(undocumented) > 0 {
		t.Logf("not in docs/reference.md yet (internal/config reads them): %v", undocumented)
	}
}

// checkBackendVariables: an authorizer names its own backend and is created with it;
// the admin function takes !Ref Backend. The tables are named to the functions of
// Backend dynamodb only.
func checkBackendVariables(t *testing.T, fn resource, vars map[string]any) {
	t.Helper()
	backend := backendOf(fn.ID)
	got := vars["EDGELIMIT_BACKEND"]
	switch {
	case backend == "" && !refTo(got, "Backend"):
		t.Errorf("%s: EDGELIMIT_BACKEND = %v, want !Ref Backend", fn.ID, got)
	case backend != "" && got != backend:
		t.Errorf("%s: EDGELIMIT_BACKEND = %v, want %s", fn.ID, got, backend)
	}
	for name, table := range map[string]string{"EDGELIMIT_TENANTS_TABLE": tenantsTable, "EDGELIMIT_COUNTERS_TABLE": countersTable} {
		alts := alternatives(vars[name])
		switch {
		case backend != "" && backend != "dynamodb" && vars[name] != nil:
			t.Errorf("%s: %s = %v, want none (Backend %s)", fn.ID, name, vars[name], backend)
		case (backend == "" || backend == "dynamodb") && (len(alts) != 1 || !refTo(alts[0], table)):
			t.Errorf("%s: %s = %v, want !Ref %s (under its condition)", fn.ID, name, vars[name], table)
		}
	}
}

// Every Ref, GetAtt, Sub variable and condition resolves, and a resource that has a
// Condition is referenced only where that condition holds (inside an Fn::If on it, or
// from a resource or output with the same condition, or in the else branches of the
// Fn::Ifs on every other allowed value of its parameter): CloudFormation refuses the
// template otherwise, and no SAM CLI runs here to tell.
func TestReferencesResolve(t *testing.T) {
	tmpl := load(t)
	c := refChecker{t: t, tmpl: tmpl}
	for _, name := range sortedKeys(asMap(tmpl["Conditions"])) {
		c.walk("Conditions."+name, dig(tmpl, "Conditions", name), nil)
	}
	for _, name := range sortedKeys(asMap(tmpl["Rules"])) {
		c.walk("Rules."+name, dig(tmpl, "Rules", name), nil)
	}
	for _, section := range []string{"Resources", "Outputs"} {
		for _, id := range sortedKeys(asMap(tmpl[section])) {
			entry := asMap(dig(tmpl, section, id))
			var active []string
			if cond, ok := entry["Condition"].(string); ok {
				c.condition(section+"."+id, cond)
				active = append(active, cond)
			}
			c.walk(section+"."+id, entry, active)
		}
	}
}

var pseudoParameters = []string{
	"AWS::AccountId", "AWS::NotificationARNs", "AWS::NoValue", "AWS::Partition",
	"AWS::Region", "AWS::StackId", "AWS::StackName", "AWS::URLSuffix",
}

type refChecker struct {
	t    *testing.T
	tmpl map[string]any
}

// walk checks the references under v at where, with the conditions active that hold there.
func (c refChecker) walk(where string, v any, active []string) {
	if fn, arg, ok := intrinsic(v); ok {
		c.intrinsic(where, fn, arg, active)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			c.walk(where+"."+k, v[k], active)
		}
	case []any:
		for _, e := range v {
			c.walk(where, e, active)
		}
	}
}

func (c refChecker) intrinsic(where, fn string, arg any, active []string) {
	switch fn {
	case "Ref":
		c.target(where, asString(arg), active)
	case "Condition":
		c.condition(where, asString(arg))
	case "Fn::GetAtt":
		if parts := asStrings(arg); len(parts) == 2 {
			c.resource(where, parts[0], active)
		} else {
			c.t.Errorf("%s: Fn::GetAtt %v", where, arg)
		}
	case "Fn::If":
		args := asList(arg)
		if len(args) != 3 {
			c.t.Errorf("%s: Fn::If needs 3 arguments, has %d", where, len(args))
			return
		}
		cond := asString(args[0])
		c.condition(where, cond)
		c.walk(where, args[1], append(slices.Clip(active), cond))
		c.walk(where, args[2], append(slices.Clip(active), "!"+cond))
	case "Fn::Sub":
		c.sub(where, arg, active)
	default:
		c.walk(where, arg, active)
	}
}

var subVariable = regexp.MustCompile(`\$\{([^!}][^}]*)\}`)

func (c refChecker) sub(where string, arg any, active []string) {
	text, vars := asString(arg), map[string]any{}
	if l := asList(arg); len(l) == 2 {
		text, vars = asString(l[0]), asMap(l[1])
		c.walk(where, l[1], active)
	}
	for _, m := range subVariable.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if _, ok := vars[name]; ok {
			continue
		}
		if res, _, ok := strings.Cut(name, "."); ok && !strings.HasPrefix(name, "AWS::") {
			c.resource(where, res, active)
			continue
		}
		c.target(where, name, active)
	}
}

// target checks a Ref: a parameter, a pseudo parameter or a resource.
func (c refChecker) target(where, name string, active []string) {
	if dig(c.tmpl, "Parameters", name) != nil || slices.Contains(pseudoParameters, name) {
		return
	}
	c.resource(where, name, active)
}

func (c refChecker) resource(where, id string, active []string) {
	r := asMap(dig(c.tmpl, "Resources", id))
	if r == nil {
		c.t.Errorf("%s: reference to %q, which is not a parameter or resource", where, id)
		return
	}
	if cond, ok := r["Condition"].(string); ok && !slices.Contains(active, cond) && !c.onlyLeft(cond, active) {
		c.t.Errorf("%s: reference to %s outside its condition %s (wrap it in !If [%s, ...])", where, id, cond, cond)
	}
}

// onlyLeft reports whether cond, an !Equals [!Ref P, v] of a parameter P with
// AllowedValues, holds because the conditions on each of P's other values are false
// where active holds (the else branches of their Fn::Ifs).
func (c refChecker) onlyLeft(cond string, active []string) bool {
	param, value, ok := c.equalsParameter(cond)
	if !ok {
		return false
	}
	for _, other := range asList(dig(c.tmpl, "Parameters", param, "AllowedValues")) {
		if asString(other) == value {
			continue
		}
		negated := false
		for _, a := range active {
			name, isNot := strings.CutPrefix(a, "!")
			p, v, ok := c.equalsParameter(name)
			negated = negated || isNot && ok && p == param && v == asString(other)
		}
		if !negated {
			return false
		}
	}
	return true
}

// equalsParameter returns P and v when the condition name is !Equals [!Ref P, v].
func (c refChecker) equalsParameter(name string) (param, value string, ok bool) {
	fn, arg, isFn := intrinsic(dig(c.tmpl, "Conditions", name))
	args := asList(arg)
	if !isFn || fn != "Fn::Equals" || len(args) != 2 {
		return "", "", false
	}
	ref, refArg, isRef := intrinsic(args[0])
	if !isRef || ref != "Ref" || asList(dig(c.tmpl, "Parameters", asString(refArg), "AllowedValues")) == nil {
		return "", "", false
	}
	return asString(refArg), asString(args[1]), true
}

func (c refChecker) condition(where, name string) {
	if dig(c.tmpl, "Conditions", name) == nil {
		c.t.Errorf("%s: condition %q is not declared", where, name)
	}
}

// The authorizer of Backend redis may be named in the else branches of the Fn::Ifs on
// dynamodb and on upstash, and not in one of them alone.
func TestOnlyLeftCondition(t *testing.T) {
	c := refChecker{t: t, tmpl: load(t)}
	for _, tc := range []struct {
		active []string
		want   bool
	}{
		{[]string{"!UseDynamoDB", "!UseUpstash"}, true},
		{[]string{"!UseDynamoDB"}, false},
		{[]string{"!UseUpstash", "UseDynamoDB"}, false},
		{nil, false},
	} {
		if got := c.onlyLeft("UseRedis", tc.active); got != tc.want {
			t.Errorf("UseRedis where %v holds: %v, want %v", tc.active, got, tc.want)
		}
	}
}
