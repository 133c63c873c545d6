package request_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/request"
)

// corpus returns every file of events/ (authorizer and admin events alike) and
// generated events: each event file under every edit of variants, and the events of
// generated.
func corpus(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../../events/*/*.json")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d files in events/ (%v), want at least 20", len(files), err)
	}
	var out [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		for _, edit := range variants {
			out = append(out, []byte(edit(string(b))))
		}
	}
	return append(out, generated()...)
}

// generated returns events of both kinds built from their parts: the key header in
// several spellings, repeated, padded and in the multi-value map; members in other
// cases; nulls; and escaped strings.
func generated() [][]byte {
	names := []string{"x-api-key", "X-Api-Key", "X-API-KEY", `x-api-k\u0065y`}
	values := []string{"elk_a", " elk_b\t", "", `elk_\u00e9`, `elk_"q\"`}
	var out [][]byte
	for i := range 80 {
		name, value := names[i%len(names)], values[i/len(names)%len(values)]
		headers := fmt.Sprintf(`{%q: "elk_first", "%s": "%s"}`, names[(i+1)%len(names)], name, value)
		if i%3 == 0 {
			headers = "null"
		}
		ctx := `"requestContext": {"requestId": "r%d", "identity": {"sourceIp": "192.0.2.%d"}, "http": {"method": "POST", "sourceIp": "2001:db8::%d"}, "resourcePath": "/p", "routeKey": "GET /k"}`
		rest := fmt.Sprintf(`{"type": "REQUEST", "methodArn": "arn:%d", "httpMethod": "GET", "resource": "/r", "headers": %s, "multiValueHeaders": {"%s": ["elk_multi", "elk_2"]}, `+ctx+`}`,
			i, headers, name, i, i, i)
		http := fmt.Sprintf(`{"version": "2.0", "type": "REQUEST", "routeArn": "arn:%d", "routeKey": "GET /v2", "headers": %s, `+ctx+`}`, i, headers, i, i, i)
		if i%4 == 1 {
			rest = strings.Replace(rest, `"httpMethod"`, `"HttpMethod"`, 1)
			http = strings.Replace(http, `"requestContext"`, `"REQUESTCONTEXT"`, 1)
		}
		out = append(out, []byte(rest), []byte(http))
	}
	return out
}

// wantIdentity is what each authorizer event of events/ decodes to for the key header
// x-api-key: its kind, method, route, key and address ("" for an event refused).
var wantIdentity = map[string]struct {
	kind                            request.EventKind
	method, route, key, ip, arnTail string
}{
	"http-anonymous-route":   {request.HTTPEvent, "GET", "GET /health", "", "203.0.113.7", "$default/GET/health"},
	"http-iam-valid-key":     {request.HTTPEvent, "GET", "GET /hello", demoKey, "203.0.113.7", "$default/GET/hello"},
	"http-missing-key":       {request.HTTPEvent, "GET", "GET /hello", "", "203.0.113.7", "$default/GET/hello"},
	"http-unknown-key":       {request.HTTPEvent, "GET", "GET /hello", unknownKey, "203.0.113.7", "$default/GET/hello"},
	"http-valid-key":         {request.HTTPEvent, "GET", "GET /hello", demoKey, "203.0.113.7", "$default/GET/hello"},
	"rest-anonymous-route":   {request.RESTEvent, "GET", "/health", "", "203.0.113.7", "v1/GET/health"},
	"rest-missing-key":       {request.RESTEvent, "GET", "/hello", "", "203.0.113.7", "v1/GET/hello"},
	"rest-token":             {request.TokenEvent, "GET", "/hello", demoKey, "", "v1/GET/hello"},
	"rest-token-unknown-key": {request.TokenEvent, "POST", "/orders/42", unknownKey, "", "v1/POST/orders/42"},
	"rest-unknown-key":       {request.RESTEvent, "GET", "/hello", unknownKey, "203.0.113.7", "v1/GET/hello"},
	"rest-valid-key":         {request.RESTEvent, "GET", "/hello", demoKey, "203.0.113.7", "v1/GET/hello"},
}

// The keys of events/authorizer: the documented demo key, and one nobody issued.
const (
	demoKey    = "elk_xxh64u27_TBaYVHqi6DTHa-Wklpz1R9d3Wkuf7AXtXmfyjIqsZ24"
	unknownKey = "elk_zz9unkwn_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
)

// Every authorizer event of events/ decodes to its expected identity, route, key,
// method and address, with the ARN its policy names; every other file of events/
// (admin events, expected results, the tenants file) is refused as no authorizer event,
// and so is every generated event the decoder refuses, with an error that says so.
func TestEventFilesDecodeToTheirIdentities(t *testing.T) {
	for name, payload := range sampleEvents(t) {
		want, ok := wantIdentity[name]
		if !ok {
			t.Errorf("%s: no expected identity", name)
			continue
		}
		ev, err := request.DecodeAuthorizerEvent(payload, "x-api-key")
		got := struct {
			kind                            request.EventKind
			method, route, key, ip, arnTail string
		}{ev.Kind, ev.Request.Method, ev.Request.Resource, ev.Request.APIKey, ev.Request.SourceIP, ""}
		if arn := ev.MethodArn + ev.RouteArn; arn != "" {
			got.arnTail = arn[strings.LastIndex(arn, ":abcdef1234/")+len(":abcdef1234/"):]
		}
		if got != want || (err != nil) != (want.kind == 0) {
			t.Errorf("%s: %+v (%v), want %+v", name, got, err, want)
		}
	}
	decoded := 0
	for _, payload := range corpus(t) {
		ev, err := request.DecodeAuthorizerEvent(payload, "x-api-key")
		switch {
		case err != nil && !strings.HasPrefix(err.Error(), "authorizer: "):
			t.Errorf("%s: error %q does not say where it comes from", payload, err)
		case err == nil && ev.Request.Method == "":
			t.Errorf("%s: decoded without a method: %+v", payload, ev)
		case err == nil:
			decoded++
		}
	}
	if decoded < 100 {
		t.Errorf("%d events decoded, want at least 100", decoded)
	}
}

// MethodOfArn reads the method and the request's path out of a REST methodArn, and
// nothing out of a string of another shape.
func TestMethodOfArn(t *testing.T) {
	const api = "arn:aws:execute-api:us-east-1:123456789012:abcdef1234"
	cases := []struct{ arn, method, resource string }{
		{api + "/v1/GET/hello", "GET", "/hello"},
		{api + "/prod/POST/pets/42/toys", "POST", "/pets/42/toys"},
		{api + "/prod/GET/", "GET", "/"},
		{api + "/prod/DELETE", "DELETE", "/"},
		{"arn:aws-cn:execute-api:cn-north-1:123456789012:api/$default/PUT/a", "PUT", "/a"},
		{api + "/prod", "", ""},
		{api + "/prod//x", "", ""},
		{"GET/hello", "", ""},
		{"", "", ""},
	}
	for _, tc := range cases {
		if m, r := request.MethodOfArn(tc.arn); m != tc.method || r != tc.resource {
			t.Errorf("MethodOfArn(%q) = %q, %q; want %q, %q", tc.arn, m, r, tc.method, tc.resource)
		}
	}
}
