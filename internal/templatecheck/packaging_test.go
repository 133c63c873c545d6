package templatecheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// The retentions CloudWatch Logs accepts (PutRetentionPolicy's retentionInDays).
var logRetentions = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

// Every function has its log group in the stack, named as Lambda names it
// (/aws/lambda/<function name>), with the retention of LogRetentionDays: otherwise
// Lambda creates the group on the first invocation and keeps its logs forever.
func TestLogGroups(t *testing.T) {
	tmpl := load(t)
	p := asMap(dig(tmpl, "Parameters", logRetentionParam))
	if p["Type"] != "Number" || p["Default"] != 30 {
		t.Errorf("%s: Type %v, Default %v; want Number, 30", logRetentionParam, p["Type"], p["Default"])
	}
	allowed := asList(p["AllowedValues"])
	for _, v := range allowed {
		if n, ok := v.(int); !ok || !slices.Contains(logRetentions, n) {
			t.Errorf("%s: AllowedValues holds %v, which CloudWatch Logs refuses", logRetentionParam, v)
		}
	}
	if !slices.Contains(allowed, p["Default"]) {
		t.Errorf("%s: the Default is not among AllowedValues", logRetentionParam)
	}
	for _, g := range resources(t, tmpl, "AWS::Logs::LogGroup") {
		switch {
		case !refTo(g.Properties["RetentionInDays"], logRetentionParam):
			t.Errorf("%s: RetentionInDays = %v, want !Ref %s", g.ID, g.Properties["RetentionInDays"], logRetentionParam)
		case g.Condition != "":
			t.Errorf("%s has Condition %s: every function logs", g.ID, g.Condition)
		}
	}
	for backend := range authorizers {
		st := stackFor(map[string]string{"Backend": backend})
		groups := map[string]bool{}
		for _, g := range resources(t, tmpl, "AWS::Logs::LogGroup") {
			groups[asString(evaluated(t, st, tmpl, g.Properties)["LogGroupName"])] = true
		}
		for _, fn := range resources(t, tmpl, "AWS::Serverless::Function") {
			name, err := st.Evaluate(tmpl, map[string]any{"Ref": fn.ID})
			if err != nil { // not created with this Backend
				continue
			}
			if want := "/aws/lambda/" + asString(name); !groups[want] {
				t.Errorf("Backend %s: %s has no AWS::Logs::LogGroup named %s (%v)", backend, fn.ID, want, groups)
			}
		}
	}
}

// UpstashTokenKmsKeyArn and RedisAuthTokenKmsKeyArn, each when set (and its backend's
// token secret is used), let each function kms:Decrypt with that key only, through
// Secrets Manager only; unset, no statement mentions KMS.
func TestTokenKmsKeys(t *testing.T) {
	tmpl := load(t)
	keys := []struct{ param, cond, under string }{
		{tokenKeyParam, "UseUpstashTokenKmsKey", "UseUpstash"},
		{redisKeyParam, "UseRedisTokenKmsKey", "UseRedisToken"},
	}
	for _, k := range keys {
		checkKMSKeyParam(t, tmpl, k.param)
		want := map[string]any{"Fn::And": []any{map[string]any{"Condition": k.under},
			map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": k.param}, ""}}}}}}
		if got := dig(tmpl, "Conditions", k.cond); !reflect.DeepEqual(got, want) {
			t.Errorf("Conditions.%s = %v, want %v", k.cond, got, want)
		}
	}
	for _, fn := range resources(t, tmpl, "AWS::Serverless::Function") {
		kms := kmsStatements(functionPolicies(t, tmpl, fn))
		if len(kms) != len(keys) {
			t.Errorf("%s: %d statements grant KMS actions, want %d", fn.ID, len(kms), len(keys))
			continue
		}
		for i, k := range keys {
			if err := checkKMSStatement(kms[i].cond, kms[i].st, k.cond, k.param); err != nil {
				t.Errorf("%s: %v", fn.ID, err)
			}
		}
	}
}

// checkKMSKeyParam: an optional String whose pattern takes a KMS key's ARN only.
func checkKMSKeyParam(t *testing.T, tmpl map[string]any, param string) {
	t.Helper()
	p := asMap(dig(tmpl, "Parameters", param))
	if p["Type"] != "String" || p["Default"] != "" {
		t.Fatalf("%s: Type %v, Default %q; want String, empty", param, p["Type"], p["Default"])
	}
	pattern := regexp.MustCompile("^(?:" + asString(p["AllowedPattern"]) + ")$")
	for arn, want := range map[string]bool{
		"": true,
		"arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab": true,
		"arn:aws:kms:eu-west-1:123456789012:key/mrk-1234abcd12ab34cd56ef1234567890ab": true,
		"arn:aws:kms:eu-west-1:123456789012:alias/edgelimit":                          false,
		"arn:aws:kms:eu-west-1:123456789012:key/*":                                    false,
		"*": false,
		"arn:aws:secretsmanager:eu-west-1:123456789012:secret:x-AbCdEf": false,
	} {
		if pattern.MatchString(arn) != want {
			t.Errorf("%s's AllowedPattern on %q: %v, want %v", param, arn, !want, want)
		}
	}
}

type conditional struct {
	cond string // the Fn::If condition the statement is under, "" for none
	st   map[string]any
}

// kmsStatements returns the statements of the policy documents with a kms: action.
func kmsStatements(policies []any) []conditional {
	var out []conditional
	for _, pol := range policies {
		for _, e := range asList(asMap(pol)["Statement"]) {
			c := conditional{st: asMap(e)}
			if name, arg, ok := intrinsic(e); ok && name == "Fn::If" && len(asList(arg)) == 3 {
				c = conditional{cond: asString(asList(arg)[0]), st: asMap(asList(arg)[1])}
			}
			for _, a := range asStrings(c.st["Action"]) {
				if len(a) > 4 && a[:4] == "kms:" {
					out = append(out, c)
					break
				}
			}
		}
	}
	return out
}

func checkKMSStatement(cond string, st map[string]any, wantCond, keyParam string) error {
	via := dig(st, "Condition", "StringEquals", "kms:ViaService")
	switch {
	case cond != wantCond:
		return fmt.Errorf("the KMS statement is under condition %q, want Fn::If %s", cond, wantCond)
	case st["Effect"] != "Allow" || !slices.Equal(asStrings(st["Action"]), []string{"kms:Decrypt"}):
		return fmt.Errorf("the KMS statement: %v %v, want Allow [kms:Decrypt]", st["Effect"], st["Action"])
	case !refTo(st["Resource"], keyParam):
		return fmt.Errorf("the KMS statement's Resource = %v, want !Ref %s", st["Resource"], keyParam)
	case !reflect.DeepEqual(via, map[string]any{"Fn::Sub": "secretsmanager.${AWS::Region}.amazonaws.com"}):
		return fmt.Errorf("the KMS statement's kms:ViaService = %v, want Secrets Manager in this region", via)
	}
	return nil
}

// `sam build` builds in the source folder (samconfig.toml's build_in_source, which
// SAM's Makefile workflow supports), so it does not copy the project, .tools/ and
// its DynamoDB Local and node_modules included, into a scratch folder first: that copy
// excludes only .aws-sam and .git.
func TestSamBuildsInSource(t *testing.T) {
	root := testenv.ModuleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := parseSimpleTOML(t, data)
	if v, err := strconv.ParseBool(cfg["default.build.parameters.build_in_source"]); err != nil || !v {
		t.Errorf("samconfig.toml: default.build.parameters.build_in_source = %q, want true", cfg["default.build.parameters.build_in_source"])
	}
	if v := cfg["default.build.parameters.use_container"]; v != "" {
		t.Errorf("samconfig.toml: use_container = %s: sam build refuses it with build_in_source", v)
	}
	for _, fn := range resources(t, load(t), "AWS::Serverless::Function") {
		if fn.Metadata["BuildMethod"] != "makefile" {
			t.Errorf("%s: BuildMethod %v: build_in_source applies to the Makefile workflow", fn.ID, fn.Metadata["BuildMethod"])
		}
	}
}
