package request_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/request"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

const keyHeader = "x-api-key"

// path is one way an event reaches the gate: what the authorizer, the middleware or
// `edgelimit dev` would make of the event's JSON.
type path struct {
	name  string
	build func(t *testing.T, payload []byte, v2 bool) (gate.Request, error)
}

var paths = []path{
	{"authorizer", func(t *testing.T, payload []byte, v2 bool) (gate.Request, error) {
		if v2 {
			return request.FromHTTPAuthorizer(decode[events.APIGatewayV2CustomAuthorizerV2Request](t, payload), keyHeader), nil
		}
		return request.FromRESTAuthorizer(decode[events.APIGatewayCustomAuthorizerRequestTypeRequest](t, payload), keyHeader)
	}},
	{"middleware (proxy event)", func(t *testing.T, payload []byte, v2 bool) (gate.Request, error) {
		if v2 {
			return request.FromHTTPProxy(decode[events.APIGatewayV2HTTPRequest](t, payload), keyHeader), nil
		}
		return request.FromRESTProxy(decode[events.APIGatewayProxyRequest](t, payload), keyHeader), nil
	}},
	{"middleware (net/http)", func(t *testing.T, payload []byte, v2 bool) (gate.Request, error) {
		return request.FromHTTP(httpRequest(t, payload, v2), keyHeader), nil
	}},
	{"edgelimit dev", func(t *testing.T, payload []byte, v2 bool) (gate.Request, error) {
		return request.FromRESTAuthorizer(request.RESTAuthorizerEvent(httpRequest(t, payload, v2), "id"), keyHeader)
	}},
}

// Every event of events/authorizer gives the same identity (API key, method, route,
// source IP) through the authorizer, the middleware and `edgelimit dev`, as it is and
// with whitespace around its key, which every path trims (before, the authorizer
// trimmed it and the middleware did not, and answered 401). A route is the REST
// resource or the HTTP API route key; the paths that see a plain HTTP request (dev,
// net/http) have the path, which is the route key's. A TOKEN event has no headers: its
// token is the key, whatever path reads it, and its route is the methodArn's.
func TestSameIdentityOnEveryPath(t *testing.T) {
	files, _ := filepath.Glob("../../events/authorizer/*.json")
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".expected.json") || filepath.Base(file) == "tenants.json" {
			continue
		}
		n++
		payload, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			var probe struct{ Type, Version string }
			_ = json.Unmarshal(payload, &probe)
			if probe.Type == "TOKEN" {
				checkToken(t, payload)
				return
			}
			v2 := probe.Version == "2.0"
			for _, variant := range []struct{ name, pad string }{{"as sent", ""}, {"padded key", " \t"}} {
				padded := padKey(t, payload, variant.pad)
				want, err := paths[0].build(t, padded, v2)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(name, "valid-key") && (want.APIKey == "" || strings.TrimSpace(want.APIKey) != want.APIKey) {
					t.Fatalf("%s: the authorizer read the key %q", variant.name, want.APIKey)
				}
				if want.Method == "" || want.Resource == "" || want.SourceIP == "" {
					t.Fatalf("%s: the authorizer's request %+v lacks a method, resource or source IP", variant.name, want)
				}
				for _, p := range paths[1:] {
					got, err := p.build(t, padded, v2)
					if err != nil || got.APIKey != want.APIKey || got.Method != want.Method ||
						route(got) != route(want) || got.SourceIP != want.SourceIP {
						t.Errorf("%s, %s: %+v (%v), want the authorizer's %+v", variant.name, p.name, got, err, want)
					}
				}
			}
		})
	}
	if n < 8 {
		t.Fatalf("%d events in events/authorizer, want at least 8", n)
	}
}

// checkToken checks a TOKEN event: its token, padded or not, is the key; the method and
// resource are the methodArn's; there is no source IP; and as a REQUEST event it gets
// ErrTokenEvent.
func checkToken(t *testing.T, payload []byte) {
	t.Helper()
	ev := decode[events.APIGatewayCustomAuthorizerRequest](t, payload)
	want := request.FromTokenAuthorizer(ev)
	method, resource := request.MethodOfArn(ev.MethodArn)
	ev.AuthorizationToken = " \t" + ev.AuthorizationToken + " "
	if got := request.FromTokenAuthorizer(ev); got != want || want.APIKey == "" || want.Method != method || method == "" ||
		want.Resource != resource || !strings.HasSuffix(ev.MethodArn, want.Method+want.Resource) || want.SourceIP != "" {
		t.Errorf("TOKEN event: %+v, padded %+v", want, got)
	}
	if _, err := paths[0].build(t, payload, false); !errors.Is(err, request.ErrTokenEvent) {
		t.Errorf("TOKEN event as a REQUEST event: %v, want ErrTokenEvent", err)
	}
}

// route is a request's route as an HTTP API route key: "GET /hello".
func route(r gate.Request) string {
	if strings.Contains(r.Resource, " ") || r.Resource == "$default" {
		return r.Resource
	}
	return r.Method + " " + r.Resource
}

func decode[E any](t *testing.T, payload []byte) E {
	t.Helper()
	var ev E
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// padKey returns the event with pad around every value of its key header.
func padKey(t *testing.T, payload []byte, pad string) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{"headers", "multiValueHeaders"} {
		hs, _ := ev[member].(map[string]any)
		for k, v := range hs {
			if !strings.EqualFold(k, keyHeader) {
				continue
			}
			switch v := v.(type) {
			case string:
				hs[k] = pad + v + pad
			case []any:
				for i := range v {
					v[i] = pad + v[i].(string) + pad
				}
			}
		}
	}
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// httpRequest is the HTTP request the event stands for, as a server would receive it:
// its method, path, headers and the client's address.
func httpRequest(t *testing.T, payload []byte, v2 bool) *http.Request {
	t.Helper()
	var ev struct {
		HTTPMethod, Path, RawPath string
		Headers                   map[string]string
		RequestContext            struct {
			Identity struct{ SourceIP string }
			HTTP     struct{ Method, SourceIP string }
		}
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	method, target, ip := ev.HTTPMethod, ev.Path, ev.RequestContext.Identity.SourceIP
	if v2 {
		method, target, ip = ev.RequestContext.HTTP.Method, ev.RawPath, ev.RequestContext.HTTP.SourceIP
	}
	r := httptest.NewRequest(method, target, nil)
	for k, v := range ev.Headers {
		r.Header.Add(k, v) // canonical names as a server parses them; the value as given
	}
	r.RemoteAddr = ip + ":443"
	return r
}
