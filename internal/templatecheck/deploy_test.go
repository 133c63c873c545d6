package templatecheck

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// AuthorizerType picks the REST API's authorizer type, REQUEST by default: SAM resolves
// a parameter's Ref in Auth when it transforms the template, and Identity names the
// x-api-key header for either type (Headers for REQUEST, Header, where a TOKEN
// authorizer reads its token, for TOKEN). Caching stays off for both
// (TestAuthorizerIsDefaultWithCachingOff, which checks that FunctionPayloadType is the
// parameter).
func TestAuthorizerType(t *testing.T) {
	tmpl := load(t)
	p := asMap(dig(tmpl, "Parameters", "AuthorizerType"))
	if got := asStrings(p["AllowedValues"]); !slices.Equal(got, []string{"REQUEST", "TOKEN"}) || p["Default"] != "REQUEST" {
		t.Errorf("AuthorizerType: AllowedValues %v, Default %v; want [REQUEST TOKEN], REQUEST", got, p["Default"])
	}
	api := limitedAPI(t, tmpl)
	name := asString(dig(api.Properties, "Auth", "DefaultAuthorizer"))
	authorizer := asMap(dig(api.Properties, "Auth", "Authorizers", name))
	if got := dig(authorizer, "Identity", "Header"); got != apiKeyHeader {
		t.Errorf("%s.%s: Identity.Header = %v, want %s (a TOKEN authorizer's token)", api.ID, name, got, apiKeyHeader)
	}
}

// The URL outputs are base URLs: "$AdminApiUrl/tenants" and "$ApiUrl/hello", as the
// README writes them, have one slash before the path.
func TestOutputURLsAreBaseURLs(t *testing.T) {
	tmpl := load(t)
	st := stackFor(nil)
	for output, path := range map[string]string{"AdminApiUrl": "/tenants", "ApiUrl": "/hello"} {
		v, err := st.Evaluate(tmpl, dig(tmpl, "Outputs", output, "Value"))
		if err != nil {
			t.Fatalf("Outputs.%s: %v", output, err)
		}
		base := asString(v)
		u, err := url.Parse(base + path)
		if err != nil || u.Scheme != "https" || u.Path != "/v1"+path {
			t.Errorf("Outputs.%s = %q: %s%s has the path %q (%v), want /v1%s", output, base, output, path, u.Path, err, path)
		}
	}
}

// The Backend's authorizer ARN is an output exported under a name made from the stack's
// (the stacks of other APIs import it), and so are the DynamoDB tables' names.
func TestAuthorizerArnIsExported(t *testing.T) {
	tmpl := load(t)
	for backend, fn := range authorizers {
		st := stackFor(map[string]string{"Backend": backend})
		got, err := st.Evaluate(tmpl, dig(tmpl, "Outputs", "AuthorizerFunctionArn", "Value"))
		if want := st.ResourceARN(fn); err != nil || got != want {
			t.Errorf("Backend %s: Outputs.AuthorizerFunctionArn = %v (%v), want %s's ARN", backend, got, err, fn)
		}
	}
	for output := range exportedOutputs {
		got, err := stackFor(nil).Evaluate(tmpl, dig(tmpl, "Outputs", output, "Export", "Name"))
		if want := exportName(stackFor(nil).Name, output); err != nil || got != want {
			t.Errorf("Outputs.%s: Export.Name = %v (%v), want %s", output, got, err, want)
		}
	}
}

// exportedOutputs are the outputs that other stacks import, by the resource whose
// ARN or name each exports.
var exportedOutputs = map[string]string{
	"AuthorizerFunctionArn": authorizerFunction, "TenantsTableName": tenantsTable, "CountersTableName": countersTable,
}

// exportName is the name under which the stack exports an output: the stack's name,
// a dash and the output's.
func exportName(stack, output string) string { return strings.Join([]string{stack, output}, "-") }

// A 401 from the limited API names the credential it wants, as the middleware's and
// edgelimit dev's 401s do (internal/headers): API Gateway answers it itself when the
// x-api-key header is missing, without calling the authorizer.
func TestUnauthorizedNamesTheAPIKey(t *testing.T) {
	tmpl := load(t)
	api := limitedAPI(t, tmpl)
	r := asMap(dig(api.Properties, "GatewayResponses", "UNAUTHORIZED"))
	want := `'APIKey realm="edgelimit", header="` + apiKeyHeader + `"'`
	if got := headers(r)["WWW-Authenticate"]; r["StatusCode"] != "401" || got != want {
		t.Errorf("%s: GatewayResponses.UNAUTHORIZED = %v; want StatusCode 401 and WWW-Authenticate %s", api.ID, r, want)
	}
}
