package templatecheck

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The rate-limited API: the authorizer is the default on every route, a REQUEST
// authorizer on the API key header, with result caching off. A cached Allow would
// skip counting and a cached Deny would outlive Retry-After; SAM leaves the TTL at
// API Gateway's default (300 s) unless ReauthorizeEvery is given, so it must be an
// explicit 0.
func TestAuthorizerIsDefaultWithCachingOff(t *testing.T) {
	tmpl := load(t)
	api := limitedAPI(t, tmpl)
	auth := asMap(api.Properties["Auth"])
	name := asString(auth["DefaultAuthorizer"])
	authorizer := asMap(dig(auth, "Authorizers", name))
	if authorizer == nil {
		t.Fatalf("%s: DefaultAuthorizer %q is not one of its Authorizers", api.ID, name)
	}
	if got := authorizer["FunctionPayloadType"]; !refTo(got, "AuthorizerType") {
		t.Errorf("%s.%s: FunctionPayloadType = %v, want !Ref AuthorizerType (TestAuthorizerType)", api.ID, name, got)
	}
	for backend, fn := range authorizers {
		st := stackFor(map[string]string{"Backend": backend})
		got, err := st.Evaluate(tmpl, authorizer["FunctionArn"])
		if want := st.ResourceARN(fn); err != nil || got != want {
			t.Errorf("%s.%s: Backend %s: FunctionArn = %v (%v), want %s's", api.ID, name, backend, got, err, fn)
		}
	}
	identity := asMap(authorizer["Identity"])
	if ttl, ok := identity["ReauthorizeEvery"].(int); !ok || ttl != 0 {
		t.Errorf("%s.%s: Identity.ReauthorizeEvery = %v, want 0 (caching off)", api.ID, name, identity["ReauthorizeEvery"])
	}
	if got := asStrings(identity["Headers"]); !slices.Equal(got, []string{apiKeyHeader}) {
		t.Errorf("%s.%s: Identity.Headers = %v, want [%s]", api.ID, name, identity["Headers"], apiKeyHeader)
	}
	// And each authorizer reads the header that API Gateway requires.
	for _, fn := range authorizers {
		header := dig(mustResource(t, tmpl, fn, "AWS::Serverless::Function").Properties,
			"Environment", "Variables", "EDGELIMIT_KEY_HEADER")
		if header != nil && header != apiKeyHeader {
			t.Errorf("%s: EDGELIMIT_KEY_HEADER = %v, but the authorizer's identity source is %s", fn, header, apiKeyHeader)
		}
	}
	// Plain CloudFormation authorizers, if any, must not cache either.
	for _, r := range resources(t, tmpl, "AWS::ApiGateway::Authorizer") {
		if ttl, ok := r.Properties["AuthorizerResultTtlInSeconds"].(int); !ok || ttl != 0 {
			t.Errorf("%s: AuthorizerResultTtlInSeconds = %v, want 0", r.ID, r.Properties["AuthorizerResultTtlInSeconds"])
		}
	}
}

// The rate-limited API's stage is redeployed on every stack update (AlwaysDeploy): its
// authorizer's FunctionArn is an Fn::If on Backend, which SAM does not resolve before it
// names the deployment from the API's definition, so a change of Backend alone would
// leave the stage calling the replaced function.
func TestLimitedAPIAlwaysDeploys(t *testing.T) {
	api := limitedAPI(t, load(t))
	if got := api.Properties["AlwaysDeploy"]; got != true {
		t.Errorf("%s: AlwaysDeploy = %v, want true", api.ID, got)
	}
}

// No route of the rate-limited API escapes the authorizer: no event or OpenAPI
// operation overrides the default.
func TestEveryLimitedRouteRunsTheAuthorizer(t *testing.T) {
	tmpl := load(t)
	api := limitedAPI(t, tmpl)
	for _, ev := range apiEvents(t, tmpl) {
		if !refTo(ev.props["RestApiId"], api.ID) {
			continue
		}
		if a := dig(ev.props, "Auth", "Authorizer"); a != nil && a != asString(dig(api.Properties, "Auth", "DefaultAuthorizer")) {
			t.Errorf("%s.%s: Auth.Authorizer = %v overrides the rate limiter", ev.function, ev.name, a)
		}
	}
	if sec, ok := asMap(api.Properties["DefinitionBody"])["security"]; ok {
		t.Errorf("DefinitionBody sets security %v for every route: it would replace the default authorizer", sec)
	}
	for path, ops := range asMap(dig(api.Properties, "DefinitionBody", "paths")) {
		for method, op := range asMap(ops) {
			if sec, ok := asMap(op)["security"]; ok {
				t.Errorf("DefinitionBody %s %s sets security %v: it would replace the default authorizer", method, path, sec)
			}
		}
	}
	if len(asMap(dig(api.Properties, "DefinitionBody", "paths"))) == 0 && len(apiEventsOf(t, tmpl, api.ID)) == 0 {
		t.Errorf("%s has no route", api.ID)
	}
}

// A Deny is ACCESS_DENIED: the rate-limited API answers it with 429, the decision in a
// JSON body (the documented carrier of $context.authorizer.*) and a static Retry-After
// (header values mapped from the authorizer's context are not documented by AWS).
func TestAccessDeniedAnswers429(t *testing.T) {
	tmpl := load(t)
	api := limitedAPI(t, tmpl)
	resp := accessDenied(t, tmpl, api.ID)
	if resp == nil {
		t.Fatalf("%s has no ACCESS_DENIED gateway response", api.ID)
	}
	if got := resp["StatusCode"]; got != "429" {
		t.Errorf("ACCESS_DENIED StatusCode = %#v, want \"429\"", got)
	}
	body := asString(dig(resp, "ResponseTemplates", "application/json"))
	for _, key := range []string{"retryAfter", "limit", "remaining", "reset", "rule", "tenantId", "failClosed"} {
		if !strings.Contains(body, "$context.authorizer."+key) {
			t.Errorf("the ACCESS_DENIED body does not carry $context.authorizer.%s: %s", key, body)
		}
	}
	// API Gateway substitutes the variables as text: the body must be JSON for any value.
	sample := regexp.MustCompile(`\$context\.[A-Za-z.]+`).ReplaceAllString(body, "v")
	if !json.Valid([]byte(sample)) {
		t.Errorf("the ACCESS_DENIED body is not JSON once its variables are substituted: %s", sample)
	}
	retryAfter := asString(headers(resp)["Retry-After"])
	if !regexp.MustCompile(`^'[0-9]+'$`).MatchString(retryAfter) {
		t.Errorf("ACCESS_DENIED Retry-After = %q, want a static number of seconds such as '1'", retryAfter)
	}
}

// limitedAPI returns the Serverless::Api whose default authorizer is a Lambda authorizer.
func limitedAPI(t testing.TB, tmpl map[string]any) resource {
	t.Helper()
	var found []resource
	for _, api := range resources(t, tmpl, "AWS::Serverless::Api") {
		def := asString(dig(api.Properties, "Auth", "DefaultAuthorizer"))
		if dig(api.Properties, "Auth", "Authorizers", def, "FunctionArn") != nil {
			found = append(found, api)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one AWS::Serverless::Api with a Lambda DefaultAuthorizer, found %d", len(found))
	}
	return found[0]
}

// accessDenied returns apiID's ACCESS_DENIED response, from the API's GatewayResponses
// or from an AWS::ApiGateway::GatewayResponse on it, in the Serverless::Api shape.
func accessDenied(t testing.TB, tmpl map[string]any, apiID string) map[string]any {
	t.Helper()
	api := mustResource(t, tmpl, apiID, "AWS::Serverless::Api")
	if r := asMap(dig(api.Properties, "GatewayResponses", "ACCESS_DENIED")); r != nil {
		return r
	}
	for _, r := range resources(t, tmpl, "AWS::ApiGateway::GatewayResponse") {
		if r.Properties["ResponseType"] == "ACCESS_DENIED" && refTo(r.Properties["RestApiId"], apiID) {
			out := map[string]any{"StatusCode": r.Properties["StatusCode"], "ResponseTemplates": r.Properties["ResponseTemplates"]}
			hs := map[string]any{}
			for k, v := range asMap(r.Properties["ResponseParameters"]) {
				if name, ok := strings.CutPrefix(k, "gatewayresponse.header."); ok {
					hs[name] = v
				}
			}
			out["ResponseParameters"] = map[string]any{"Headers": hs}
			return out
		}
	}
	return nil
}

func headers(resp map[string]any) map[string]any {
	return asMap(dig(resp, "ResponseParameters", "Headers"))
}
