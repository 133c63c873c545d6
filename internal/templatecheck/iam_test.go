package templatecheck

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The DynamoDB actions a function may have: item-level ones, never table management.
var itemActions = []string{
	"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
	"dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem",
	"dynamodb:Query", "dynamodb:Scan",
}

// Every IAM statement in the template names its actions and the stack's own tables or
// the token secret: no wildcard action, no "*" resource, no managed policy or SAM
// policy template (whose scope is not in this file to read).
func TestIAMStatementsAreScoped(t *testing.T) {
	tmpl := load(t)
	for _, fn := range resources(t, tmpl, "AWS::Serverless::Function") {
		for i, pol := range functionPolicies(t, tmpl, fn) {
			for _, alt := range alternatives(pol) {
				if _, ok := asMap(alt)["Statement"]; !ok {
					t.Errorf("%s's policy %d = %v: want an inline policy document (Statement), not a managed policy or policy template", fn.ID, i, alt)
				}
			}
		}
	}
	n := 0
	for _, r := range resources(t, tmpl, "") {
		for _, st := range statements(r.Properties) {
			n++
			for _, err := range checkStatement(tmpl, st) {
				t.Errorf("%s: %v in %v", r.ID, err, st)
			}
		}
	}
	if n == 0 {
		t.Fatal("no IAM statement found")
	}
}

// The authorizer gets exactly what one decision needs: read a key and its tenant, and
// update (or peek at) a counter, and write the tenants table's epoch marker when it is
// missing; on Upstash and Redis, the token secret (and its KMS key). The admin function gets
// item-level DynamoDB actions only.
func TestLeastPrivilege(t *testing.T) {
	tmpl := load(t)
	secret, key, redisSecret := "Ref "+tokenSecretParam, "Ref "+tokenKeyParam, "Ref "+redisSecretParam
	redisKey := "Ref " + redisKeyParam
	want := map[string][]string{
		"GetAtt " + tenantsTable:   {"dynamodb:GetItem", "dynamodb:PutItem"}, // PutItem: the epoch marker alone (TestEpochMarkerWriteIsScoped)
		"GetAtt " + countersTable:  {"dynamodb:GetItem", "dynamodb:UpdateItem"},
		secret:                     {"secretsmanager:GetSecretValue"},
		key:                        {"kms:Decrypt"},
		redisSecret:                {"secretsmanager:GetSecretValue"},
		redisKey:                   {"kms:Decrypt"},
		"Ref " + reservationSecret: {"secretsmanager:GetSecretValue"},
	}
	got := grants(t, tmpl, authorizerFunction)
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("%s may do %v, want exactly %v", authorizerFunction, got, want)
	}
	admin := grants(t, tmpl, adminFunction)
	for target, actions := range admin {
		for _, a := range actions {
			isSecret := (target == secret || target == redisSecret || target == "Ref "+reservationSecret) && a == "secretsmanager:GetSecretValue"
			if !slices.Contains(itemActions, a) && !isSecret && !((target == key || target == redisKey) && a == "kms:Decrypt") {
				t.Errorf("%s may do %s on %s: not an item-level action", adminFunction, a, target)
			}
		}
	}
	for _, a := range []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"} {
		if !slices.Contains(admin["GetAtt "+tenantsTable], a) {
			t.Errorf("%s cannot %s on %s", adminFunction, a, tenantsTable)
		}
	}
	for _, s := range []string{secret, redisSecret} {
		if !slices.Equal(admin[s], []string{"secretsmanager:GetSecretValue"}) {
			t.Errorf("%s: on the token secret %s %v, want [secretsmanager:GetSecretValue]", adminFunction, s, admin[s])
		}
	}
}

// statements returns every identity-policy statement under v (Fn::If resolved both ways),
// leaving out trust and resource policies (statements with a Principal).
func statements(v any) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case map[string]any:
		if list, ok := v["Statement"].([]any); ok {
			for _, e := range list {
				for _, alt := range alternatives(e) {
					if st := asMap(alt); st["Principal"] == nil && st["NotPrincipal"] == nil {
						out = append(out, st)
					}
				}
			}
			return out
		}
		for _, k := range sortedKeys(v) {
			out = append(out, statements(v[k])...)
		}
	case []any:
		for _, e := range v {
			out = append(out, statements(e)...)
		}
	}
	return out
}

// checkStatement lists what makes st broader than naming actions on this stack's tables
// or the token secret.
func checkStatement(tmpl map[string]any, st map[string]any) []error {
	var errs []error
	for _, k := range []string{"NotAction", "NotResource"} {
		if _, ok := st[k]; ok {
			errs = append(errs, fmt.Errorf("%s grants everything else", k))
		}
	}
	if st["Effect"] != "Allow" && st["Effect"] != "Deny" {
		errs = append(errs, fmt.Errorf("Effect %v", st["Effect"]))
	}
	actions := asStrings(st["Action"])
	if len(actions) == 0 {
		errs = append(errs, fmt.Errorf("no Action"))
	}
	action := regexp.MustCompile(`^[a-z0-9-]+:[A-Za-z0-9]+$`)
	for _, a := range actions {
		if !action.MatchString(a) {
			errs = append(errs, fmt.Errorf("action %q is not one named action", a))
		}
	}
	targets, err := resourceTargets(tmpl, st["Resource"])
	if err != nil {
		errs = append(errs, err)
	}
	for _, target := range targets {
		for _, a := range actions {
			if service, _, _ := strings.Cut(a, ":"); service != targetService(target) {
				errs = append(errs, fmt.Errorf("action %s on %s", a, target))
			}
		}
	}
	return errs
}

// targetService is the one service whose actions a target may get: dynamodb on a table,
// secretsmanager on the secret, kms on the secret's key.
func targetService(target string) string {
	switch {
	case strings.HasPrefix(target, "GetAtt "):
		return "dynamodb"
	case strings.HasSuffix(target, "KmsKeyArn"):
		return "kms"
	}
	return "secretsmanager"
}

// resourceTargets names what a statement's Resource may be: "GetAtt <table>" for a
// table of this template, "Ref <param>" for the secret ARN parameter or its KMS key's.
func resourceTargets(tmpl map[string]any, v any) ([]string, error) {
	items := asList(v)
	if items == nil {
		items = []any{v}
	}
	var out []string
	for _, item := range items {
		for _, alt := range alternatives(item) {
			if res, attr, ok := getAttOf(alt); ok && attr == "Arn" && dig(tmpl, "Resources", res, "Type") == "AWS::DynamoDB::Table" {
				out = append(out, "GetAtt "+res)
				continue
			}
			if fn, arg, ok := intrinsic(alt); ok && fn == "Ref" && (strings.HasSuffix(asString(arg), "SecretArn") || strings.HasSuffix(asString(arg), "KmsKeyArn")) && dig(tmpl, "Parameters", asString(arg)) != nil {
				out = append(out, "Ref "+asString(arg))
				continue
			}
			if fn, arg, ok := intrinsic(alt); ok && fn == "Ref" && dig(tmpl, "Resources", asString(arg), "Type") == "AWS::SecretsManager::Secret" {
				out = append(out, "Ref "+asString(arg)) // a secret of this stack
				continue
			}
			return nil, fmt.Errorf("resource %v is not a table's Arn, the secret ARN parameter or its key's, or a secret of the stack", alt)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no Resource")
	}
	return out, nil
}

// grants returns, for the function fn, the sorted actions allowed on each target.
func grants(t testing.TB, tmpl map[string]any, fn string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, st := range statements(functionPolicies(t, tmpl, mustResource(t, tmpl, fn, "AWS::Serverless::Function"))) {
		targets, err := resourceTargets(tmpl, st["Resource"])
		if err != nil || st["Effect"] != "Allow" {
			continue // reported by TestIAMStatementsAreScoped
		}
		for _, target := range targets {
			for _, a := range asStrings(st["Action"]) {
				if !slices.Contains(out[target], a) {
					out[target] = append(out[target], a)
				}
			}
			slices.Sort(out[target])
		}
	}
	return out
}

// The managed policies a function's role may have: AWS Lambda's basic execution role
// (logs), and its VPC access role only under the condition that puts the functions in
// a VPC.
var (
	basicExecutionRole = "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
	vpcAccessRole      = "arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"
)

// functionPolicies returns the policy documents of fn: those of the role of this
// template that its Role names (each Policies entry's PolicyDocument), or its own
// Policies when it has no Role. It fails the test for a role from elsewhere, and for
// a managed policy other than basicExecutionRole and vpcAccessRole (under
// redisVpcCondition).
func functionPolicies(t testing.TB, tmpl map[string]any, fn resource) []any {
	t.Helper()
	roleRef, ok := fn.Properties["Role"]
	if !ok {
		return asList(fn.Properties["Policies"])
	}
	id, attr, ok := getAttOf(roleRef)
	if !ok || attr != "Arn" {
		t.Fatalf("%s: Role = %v, want !GetAtt <a role of this template>.Arn", fn.ID, roleRef)
	}
	role := mustResource(t, tmpl, id, "AWS::IAM::Role")
	for _, arn := range asList(role.Properties["ManagedPolicyArns"]) {
		if fn, arg, ok := intrinsic(arn); ok && fn == "Fn::Sub" && arg == basicExecutionRole {
			continue
		}
		if fn, arg, ok := intrinsic(arn); ok && fn == "Fn::If" && len(asList(arg)) == 3 && asList(arg)[0] == redisVpcCondition &&
			reflect.DeepEqual(asList(arg)[1], map[string]any{"Fn::Sub": vpcAccessRole}) && refTo(asList(arg)[2], "AWS::NoValue") {
			continue
		}
		t.Errorf("%s: managed policy %v: only %s, and %s under %s", id, arn, basicExecutionRole, vpcAccessRole, redisVpcCondition)
	}
	var docs []any
	for _, pol := range asList(role.Properties["Policies"]) {
		docs = append(docs, asMap(pol)["PolicyDocument"])
	}
	return docs
}

// The authorizer's PutItem on the tenants table is for the epoch marker: its statement
// allows that one item (dynamodb:LeadingKeys is "epoch"), so that no tenant or key
// record can be written with it.
func TestEpochMarkerWriteIsScoped(t *testing.T) {
	tmpl := load(t)
	n := 0
	for _, st := range statements(functionPolicies(t, tmpl, mustResource(t, tmpl, authorizerFunction, "AWS::Serverless::Function"))) {
		if !slices.Contains(asStrings(st["Action"]), "dynamodb:PutItem") {
			continue
		}
		n++
		cond, _ := st["Condition"].(map[string]any)
		all, _ := cond["ForAllValues:StringEquals"].(map[string]any)
		if keys := asStrings(all["dynamodb:LeadingKeys"]); len(cond) != 1 || len(all) != 1 || !slices.Equal(keys, []string{"epoch"}) {
			t.Errorf("%s's PutItem statement %v: want it conditioned on dynamodb:LeadingKeys [epoch] alone", authorizerFunction, st)
		}
	}
	if n != 1 {
		t.Errorf("%d statements let %s PutItem, want 1 (the epoch marker's)", n, authorizerFunction)
	}
}
