package templatecheck

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// The DynamoDB tables exist only for Backend dynamodb: on-demand, string partition key
// "pk" (as pkg/store/dynamodb and the tenant store expect), TTL on the counters'
// expires_at, point-in-time recovery on the tenants.
func TestTables(t *testing.T) {
	tmpl := load(t)
	cond := dig(tmpl, "Conditions", dynamoCondition)
	if eq := asList(dig(cond, "Fn::Equals")); len(eq) != 2 || !refTo(eq[0], "Backend") || eq[1] != "dynamodb" {
		t.Errorf("Conditions.%s = %v, want !Equals [!Ref Backend, dynamodb]", dynamoCondition, cond)
	}
	tables := resources(t, tmpl, "AWS::DynamoDB::Table")
	if len(tables) != 2 {
		t.Errorf("want 2 tables (%s, %s), found %d", tenantsTable, countersTable, len(tables))
	}
	for _, table := range tables {
		p := table.Properties
		if table.Condition != dynamoCondition {
			t.Errorf("%s: Condition = %q, want %s", table.ID, table.Condition, dynamoCondition)
		}
		if p["BillingMode"] != "PAY_PER_REQUEST" {
			t.Errorf("%s: BillingMode = %v, want PAY_PER_REQUEST", table.ID, p["BillingMode"])
		}
		keys := asList(p["KeySchema"])
		if len(keys) != 1 || dig(keys[0], "AttributeName") != "pk" || dig(keys[0], "KeyType") != "HASH" {
			t.Errorf("%s: KeySchema = %v, want the partition key pk alone", table.ID, keys)
		}
		attrs := asList(p["AttributeDefinitions"])
		if len(attrs) != 1 || dig(attrs[0], "AttributeName") != "pk" || dig(attrs[0], "AttributeType") != "S" {
			t.Errorf("%s: AttributeDefinitions = %v, want pk of type S", table.ID, attrs)
		}
	}
	counters := mustResource(t, tmpl, countersTable, "AWS::DynamoDB::Table").Properties
	if ttl := asMap(counters["TimeToLiveSpecification"]); ttl["AttributeName"] != "expires_at" || ttl["Enabled"] != true {
		t.Errorf("%s: TimeToLiveSpecification = %v, want expires_at enabled", countersTable, ttl)
	}
	tenants := mustResource(t, tmpl, tenantsTable, "AWS::DynamoDB::Table").Properties
	if pitr := dig(tenants, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"); pitr != true {
		t.Errorf("%s: PointInTimeRecoveryEnabled = %v, want true", tenantsTable, pitr)
	}
}

// The parameters: the two backends, the two fail modes, durations and rules that the
// functions accept, and every default satisfies its own AllowedPattern/AllowedValues
// (or `sam deploy --guided` would reject its own suggestion).
func TestParameters(t *testing.T) {
	params := asMap(load(t)["Parameters"])
	wantValues := map[string][]string{
		"Backend":  {"dynamodb", "upstash", "redis"},
		"FailMode": {"open", "closed"},
	}
	for name, want := range wantValues {
		if got := asStrings(dig(params, name, "AllowedValues")); !slices.Equal(got, want) {
			t.Errorf("%s: AllowedValues = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"UpstashRestUrl", tokenSecretParam, "DefaultRules", "LatencyBudget", "LogLevel"} {
		if params[name] == nil {
			t.Errorf("no parameter %s", name)
		}
	}
	for _, name := range sortedKeys(params) {
		p := asMap(params[name])
		def, hasDefault := scalarText(p["Default"])
		if pattern := asString(p["AllowedPattern"]); pattern != "" && hasDefault {
			re, err := regexp.Compile("^(?:" + pattern + ")$") // CloudFormation matches the whole value
			if err != nil {
				t.Errorf("%s: AllowedPattern %q: %v", name, pattern, err)
			} else if !re.MatchString(def) {
				t.Errorf("%s: Default %q does not match AllowedPattern %q", name, def, pattern)
			}
		}
		if values := asStrings(p["AllowedValues"]); len(values) > 0 && hasDefault && !slices.Contains(values, def) {
			t.Errorf("%s: Default %q is not in AllowedValues %v", name, def, values)
		}
	}
	for _, name := range []string{"LatencyBudget", "ConfigTtl"} {
		if def, ok := scalarText(dig(params, name, "Default")); ok {
			if d, err := time.ParseDuration(def); err != nil || d <= 0 {
				t.Errorf("%s: Default %q is not a positive Go duration", name, def)
			}
		}
	}
	var rules []limiter.Rule
	def := asString(dig(params, "DefaultRules", "Default"))
	if err := json.Unmarshal([]byte(def), &rules); err != nil {
		t.Errorf("DefaultRules: Default is not a JSON array of rules: %v", err)
	} else if _, err := limiter.NewSet(rules, nil); err != nil {
		t.Errorf("DefaultRules: Default is not a valid rule set: %v", err)
	}
}

// The Upstash token never passes through the template: the stack takes the ARN of a
// Secrets Manager secret, and the functions read the secret. A parameter that could
// hold a secret is either such an ARN or its KMS key's (validated as one) or NoEcho; an
// UPSTASH_REDIS_REST_TOKEN variable, if any, is a Secrets Manager dynamic reference.
func TestNoPlainToken(t *testing.T) {
	tmpl := load(t)
	secretish := regexp.MustCompile(`(?i)token|secret|password|credential|apikey`)
	for _, name := range sortedKeys(asMap(tmpl["Parameters"])) {
		p := asMap(dig(tmpl, "Parameters", name))
		if !secretish.MatchString(name) || p["NoEcho"] == true {
			continue
		}
		secretARN := strings.HasSuffix(name, "SecretArn") && strings.Contains(asString(p["AllowedPattern"]), ":secretsmanager:")
		keyARN := strings.HasSuffix(name, "KmsKeyArn") && strings.Contains(asString(p["AllowedPattern"]), ":kms:")
		if !secretARN && !keyARN {
			t.Errorf("parameter %s may hold a secret: make it the ARN of a Secrets Manager secret (*SecretArn, AllowedPattern of such ARNs), of a KMS key (*KmsKeyArn), or NoEcho", name)
		}
	}
	if p := asMap(dig(tmpl, "Parameters", tokenSecretParam)); p["Type"] != "String" {
		t.Errorf("%s: Type = %v, want String", tokenSecretParam, p["Type"])
	}
	for _, fn := range resources(t, tmpl, "AWS::Serverless::Function") {
		vars := asMap(dig(fn.Properties, "Environment", "Variables"))
		v, ok := vars["UPSTASH_REDIS_REST_TOKEN"]
		if !ok {
			continue
		}
		for _, alt := range alternatives(v) {
			if s := asString(alt); !strings.HasPrefix(s, "{{resolve:secretsmanager:") {
				t.Errorf("%s: UPSTASH_REDIS_REST_TOKEN = %v: want a {{resolve:secretsmanager:...}} reference, or the ARN in UPSTASH_REDIS_REST_TOKEN_SECRET_ARN", fn.ID, alt)
			}
		}
	}
	for _, fn := range []string{authorizers["upstash"], adminFunction} {
		vars := asMap(dig(mustResource(t, tmpl, fn, "AWS::Serverless::Function").Properties, "Environment", "Variables"))
		arn := vars["UPSTASH_REDIS_REST_TOKEN_SECRET_ARN"]
		if alts := alternatives(arn); len(alts) != 1 || !refTo(alts[0], tokenSecretParam) {
			t.Errorf("%s: UPSTASH_REDIS_REST_TOKEN_SECRET_ARN = %v, want !Ref %s (under the upstash condition)", fn, arn, tokenSecretParam)
		}
	}
}

// scalarText returns a scalar as CloudFormation reads it: text (YAML reads 100 as a number).
func scalarText(v any) (string, bool) {
	switch v.(type) {
	case string, int, float64, bool:
		return fmt.Sprint(v), true
	}
	return "", false
}

// Backend upstash without its URL or token secret fails at `sam deploy`, before any
// resource is created, with a message naming the missing parameter.
func TestUpstashNeedsItsParameters(t *testing.T) {
	tmpl := load(t)
	var asserted []string
	for _, name := range sortedKeys(asMap(tmpl["Rules"])) {
		rule := asMap(dig(tmpl, "Rules", name))
		eq := asList(dig(rule, "RuleCondition", "Fn::Equals"))
		if len(eq) != 2 || !refTo(eq[0], "Backend") || eq[1] != "upstash" {
			continue
		}
		for _, a := range asList(rule["Assertions"]) {
			// !Not [!Equals [!Ref P, ""]]
			not := asList(dig(a, "Assert", "Fn::Not"))
			if len(not) != 1 {
				continue
			}
			if eq := asList(dig(not[0], "Fn::Equals")); len(eq) == 2 && eq[1] == "" {
				asserted = append(asserted, asString(dig(eq[0], "Ref")))
			}
		}
	}
	for _, p := range []string{"UpstashRestUrl", tokenSecretParam} {
		if !slices.Contains(asserted, p) {
			t.Errorf("no rule requires %s when Backend is upstash", p)
		}
	}
}
