package templatecheck

import (
	"slices"
	"testing"
)

// The admin routes of the README / docs/design.md, every one proxied to the admin function.
var adminPaths = []string{
	"/tenants",
	"/tenants/{id}",
	"/tenants/{id}/keys",
	"/tenants/{id}/keys/{keyId}",
	"/tenants/{id}/usage",
	"/tenants/{id}/reset",
}

// Every admin route is behind AWS_IAM, on an API of its own: there, an IAM denial stays
// a 403 instead of meeting the rate-limited API's ACCESS_DENIED -> 429 response, and
// API Gateway invokes the function through its resource policy (InvokeRole NONE), not
// with the caller's credentials (SAM's default for AWS_IAM).
func TestAdminRoutesUseIAM(t *testing.T) {
	tmpl := load(t)
	limited := limitedAPI(t, tmpl)
	var paths []string
	var adminAPI string
	for _, ev := range apiEventsOf(t, tmpl, "") {
		if ev.function != adminFunction {
			continue
		}
		paths = append(paths, asString(ev.props["Path"]))
		api, _, _ := intrinsic(ev.props["RestApiId"])
		if api != "Ref" {
			t.Errorf("%s.%s: RestApiId = %v, want !Ref to the admin API (not SAM's implicit API)", ev.function, ev.name, ev.props["RestApiId"])
			continue
		}
		id := asString(dig(ev.props, "RestApiId", "Ref"))
		if adminAPI == "" {
			adminAPI = id
		} else if id != adminAPI {
			t.Errorf("%s.%s: on %s, other admin routes on %s", ev.function, ev.name, id, adminAPI)
		}
		if id == limited.ID {
			t.Errorf("%s.%s: an admin route on the rate-limited API %s", ev.function, ev.name, id)
		}
		if got := dig(ev.props, "Auth", "Authorizer"); got != "AWS_IAM" {
			t.Errorf("%s.%s (%s): Auth.Authorizer = %v, want AWS_IAM", ev.function, ev.name, ev.props["Path"], got)
		}
		if got := dig(ev.props, "Auth", "InvokeRole"); got != "NONE" {
			t.Errorf("%s.%s: Auth.InvokeRole = %v, want NONE", ev.function, ev.name, got)
		}
	}
	for _, p := range adminPaths {
		if !slices.Contains(paths, p) {
			t.Errorf("no admin route %s (routes: %v)", p, paths)
		}
	}
	if adminAPI == "" {
		t.Fatal("no admin API")
	}
	api := mustResource(t, tmpl, adminAPI, "AWS::Serverless::Api")
	if got := dig(api.Properties, "Auth", "DefaultAuthorizer"); got != "AWS_IAM" {
		t.Errorf("%s: Auth.DefaultAuthorizer = %v, want AWS_IAM", api.ID, got)
	}
	if _, ok := api.Properties["DefinitionBody"]; ok {
		t.Errorf("%s has a DefinitionBody: its routes would escape this test; declare them as events", api.ID)
	}
	// Every route on the admin API is an admin function route, so all are checked above.
	for _, ev := range apiEventsOf(t, tmpl, api.ID) {
		if ev.function != adminFunction {
			t.Errorf("%s.%s: a route of %s on the admin API", ev.function, ev.name, ev.function)
		}
	}
	if accessDenied(t, tmpl, api.ID) != nil {
		t.Errorf("%s has an ACCESS_DENIED gateway response: IAM denials must stay 403", api.ID)
	}
}

// apiEvent is one `Type: Api` event of a function.
type apiEvent struct {
	function, name string
	props          map[string]any
}

// apiEvents returns every Api event of every function.
func apiEvents(t testing.TB, tmpl map[string]any) []apiEvent { return apiEventsOf(t, tmpl, "") }

// apiEventsOf returns the Api events on the API apiID ("" for all).
func apiEventsOf(t testing.TB, tmpl map[string]any, apiID string) []apiEvent {
	t.Helper()
	var out []apiEvent
	for _, fn := range resources(t, tmpl, "AWS::Serverless::Function") {
		events := asMap(fn.Properties["Events"])
		for _, name := range sortedKeys(events) {
			ev := asMap(events[name])
			if ev["Type"] != "Api" {
				continue
			}
			props := asMap(ev["Properties"])
			if apiID == "" || refTo(props["RestApiId"], apiID) {
				out = append(out, apiEvent{function: fn.ID, name: name, props: props})
			}
		}
	}
	return out
}
