package request_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/request"
)

// reference is what DecodeAuthorizerEvent stands for: the event's type and version
// decoded, then the whole event into its own aws-lambda-go type, and
// FromRESTAuthorizer or FromHTTPAuthorizer of it.
func reference(payload []byte, keyHeader string) (request.AuthorizerEvent, error) {
	var probe struct{ Type, Version string }
	if err := json.Unmarshal(payload, &probe); err != nil {
		return request.AuthorizerEvent{}, err
	}
	switch {
	case probe.Type == "TOKEN":
		var ev events.APIGatewayCustomAuthorizerRequest
		if err := json.Unmarshal(payload, &ev); err != nil {
			return request.AuthorizerEvent{}, err
		}
		return request.AuthorizerEvent{Kind: request.TokenEvent, Request: request.FromTokenAuthorizer(ev), MethodArn: ev.MethodArn}, nil
	case probe.Type != "REQUEST":
		return request.AuthorizerEvent{}, errors.New("not a REQUEST event")
	case probe.Version == "2.0":
		var ev events.APIGatewayV2CustomAuthorizerV2Request
		if err := json.Unmarshal(payload, &ev); err != nil {
			return request.AuthorizerEvent{}, err
		}
		return request.AuthorizerEvent{Kind: request.HTTPEvent, Request: request.FromHTTPAuthorizer(ev, keyHeader),
			RouteArn: ev.RouteArn, RequestID: ev.RequestContext.RequestID}, nil
	case probe.Version == "" || probe.Version == "1.0":
		var ev events.APIGatewayCustomAuthorizerRequestTypeRequest
		if err := json.Unmarshal(payload, &ev); err != nil {
			return request.AuthorizerEvent{}, err
		}
		req, err := request.FromRESTAuthorizer(ev, keyHeader)
		return request.AuthorizerEvent{Kind: request.RESTEvent, Request: req, MethodArn: ev.MethodArn,
			RequestID: ev.RequestContext.RequestID}, err
	}
	return request.AuthorizerEvent{}, errors.New("unsupported version")
}

// sampleEvents returns the payloads of events/authorizer, by name.
func sampleEvents(t testing.TB) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob("../../events/authorizer/*.json")
	out := map[string][]byte{}
	for _, file := range files {
		if strings.HasSuffix(file, ".expected.json") || filepath.Base(file) == "tenants.json" {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(file), ".json")] = b
	}
	if len(out) < 8 {
		t.Fatalf("%d sample events, want at least 8", len(out))
	}
	return out
}

// variants are edits of an event that DecodeAuthorizerEvent must read as decoding into
// the event's own type does:
// the key header's spellings and duplicates, escapes, nulls, and members in odd cases.
var variants = map[string]func(string) string{
	"as sent":   func(s string) string { return s },
	"compacted": compact,
	"key in lower case, exact": func(s string) string {
		return strings.Replace(s, `"X-Api-Key"`, `"x-api-key"`, -1)
	},
	"two spellings of the key": func(s string) string {
		return strings.Replace(s, `"headers": {`, `"headers": {"X-API-KEY": "elk_upper", "x-Api-key": "elk_mixed",`, 1)
	},
	"the exact name after another": func(s string) string {
		return strings.Replace(s, `"headers": {`, `"headers": {"X-API-KEY": "elk_upper", "x-api-key": "elk_exact", "x-api-key": "elk_last",`, 1)
	},
	"an escaped name and value": func(s string) string {
		return strings.Replace(s, `"headers": {`, `"headers": {"x-api-k\u0065y": " elk_\u00e9sc\"aped\t",`, 1)
	},
	"an empty single value": func(s string) string {
		return strings.Replace(s, `"headers": {`, `"headers": {"x-api-key": "  ",`, 1)
	},
	"null headers": func(s string) string {
		return strings.Replace(s, `"headers": {`, `"headers": null, "headers": {"x-api-key": "elk_lost"}, "headers": null, "hEaders": {`, 1)
	},
	"null values": func(s string) string {
		return strings.Replace(s, `"httpMethod": "GET"`, `"httpMethod": "GET", "httpMethod": null, "resource": null, "requestContext": null`, 1)
	},
	"members in another case": func(s string) string {
		return strings.NewReplacer(`"httpMethod"`, `"HTTPMETHOD"`, `"requestContext"`, `"RequestContext"`, `"sourceIp"`, `"SOURCEIP"`).Replace(s)
	},
	"no resource at the top": func(s string) string {
		return strings.NewReplacer(`"resource":`, `"unrelated":`, `"routeKey": "GET /hello",`, ``).Replace(s)
	},
	"unicode and numbers elsewhere": func(s string) string {
		return strings.Replace(s, `{`, `{"x": [1, -0.5e+3, true, false, null, {"y": "\u2028\ud83d\ude00é"}, []], "z": {},`, 1)
	},
	"a long header name": func(s string) string {
		return strings.Replace(s, `"headers": {`, `"headers": {"`+strings.Repeat("X-Long-", 20)+`": "v", "X-Api-Keyy": "elk_not",`, 1)
	},
}

func compact(s string) string {
	var b strings.Builder
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	out, _ := json.Marshal(v)
	b.Write(out)
	return b.String()
}

// Every sample event, and every variant of it, reads as the reference reads it, for
// the default key header and others (the key is looked for by name, whatever its case).
func TestDecodeAuthorizerEventIsDecoding(t *testing.T) {
	for name, payload := range sampleEvents(t) {
		for vname, edit := range variants {
			p := []byte(edit(string(payload)))
			for _, header := range []string{"x-api-key", "X-Api-Key", "Authorization"} {
				want, werr := reference(p, header)
				got, err := request.DecodeAuthorizerEvent(p, header)
				if (err == nil) != (werr == nil) || got != want {
					t.Errorf("%s, %s, header %s:\n got %+v (%v)\nwant %+v (%v)", name, vname, header, got, err, want, werr)
				}
			}
		}
	}
}

// Payloads that are not JSON, or whose members have the wrong types, are refused with
// an error that says so; so is trailing data, as encoding/json refuses it.
func TestDecodeAuthorizerEventRefuses(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	cases := map[string]string{
		"empty":                   ``,
		"not JSON":                `{`,
		"trailing data":           `{"type": "REQUEST"} {}`,
		"trailing comma":          `{"type": "REQUEST",}`,
		"bad escape":              `{"type": "REQ\xUEST"}`,
		"control character":       "{\"type\": \"REQ\nUEST\"}",
		"bad number":              `{"type": "REQUEST", "n": 01}`,
		"bad literal":             `{"type": "REQUEST", "n": nul}`,
		"too deep":                `{"type": "REQUEST", "n": ` + deep + `}`,
		"an array":                `[]`,
		"type not a string":       `{"type": 1}`,
		"headers not an object":   `{"type": "REQUEST", "headers": []}`,
		"a header not a string":   `{"type": "REQUEST", "headers": {"x-api-key": 1}}`,
		"multi not lists":         `{"type": "REQUEST", "multiValueHeaders": {"x-api-key": "k"}}`,
		"context not an object":   `{"type": "REQUEST", "requestContext": "x"}`,
		"source IP not a string":  `{"type": "REQUEST", "requestContext": {"identity": {"sourceIp": 1}}}`,
		"v2 method not a string":  `{"type": "REQUEST", "version": "2.0", "requestContext": {"http": {"method": []}}}`,
		"unknown version":         `{"type": "REQUEST", "version": "3.0"}`,
		"not an authorizer event": `{"Records": []}`,
	}
	for name, payload := range cases {
		if _, err := request.DecodeAuthorizerEvent([]byte(payload), "x-api-key"); err == nil || !strings.HasPrefix(err.Error(), "authorizer: ") {
			t.Errorf("%s: %v, want an error saying what is wrong", name, err)
		}
		if _, err := reference([]byte(payload), "x-api-key"); err == nil {
			t.Errorf("%s: the reference accepts it", name)
		}
	}
	// A member read of the other kind's type is decoded too: of the wrong JSON type, it
	// is refused, and the error names it, never its value.
	_, err := request.DecodeAuthorizerEvent([]byte(`{"type": "REQUEST", "version": "2.0", "authorizationToken": 1, "headers": {"x-api-key": "elk_secret"}}`), "x-api-key")
	if err == nil || err.Error() != "authorizer: malformed event: authorizationToken has the wrong JSON type (number)" {
		t.Errorf("a member of the TOKEN type in an HTTP event: %v", err)
	}
	_, err = request.DecodeAuthorizerEvent([]byte(`{"type": "REQUEST", "requestContext": {"identity": {"sourceIp": {"elk_secret": 1}}}}`), "x-api-key")
	if err == nil || err.Error() != "authorizer: malformed event: requestContext.identity.sourceIp has the wrong JSON type (object)" {
		t.Errorf("a nested member of the wrong type: %v", err)
	}
}

// A member that is not read is skipped, whatever it holds: an event with one of the
// wrong JSON type reads as the same event without it.
func TestDecodeAuthorizerEventSkipsMembersNotRead(t *testing.T) {
	for name, payload := range sampleEvents(t) {
		want, werr := request.DecodeAuthorizerEvent(payload, "x-api-key")
		edited := strings.Replace(string(payload), `{`, `{"path": 1, "queryStringParameters": [], "pathParameters": "x", "stageVariables": 2, "cookies": {},`, 1)
		edited = strings.Replace(edited, `"requestContext": {`, `"requestContext": {"accountId": [], "stage": {}, "requestTimeEpoch": "x",`, 1)
		got, err := request.DecodeAuthorizerEvent([]byte(edited), "x-api-key")
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: got %+v (%v), want %+v (%v)", name, got, err, want, werr)
		}
	}
}

// FuzzDecodeAuthorizerEvent holds the decoder to the reference on any payload: where
// both accept it they read the same; it accepts no payload that is not JSON; and it
// refuses one that the reference accepts only for a member of the other kind's type
// that holds the wrong JSON type.
func FuzzDecodeAuthorizerEvent(f *testing.F) {
	for _, payload := range corpus(f) {
		f.Add(payload)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		got, err := request.DecodeAuthorizerEvent(payload, "x-api-key")
		want, werr := reference(payload, "x-api-key")
		switch {
		case err == nil && !json.Valid(payload):
			t.Fatalf("accepted a payload that is not JSON: %q", payload)
		case err == nil && werr == nil && got != want:
			t.Fatalf("got %+v, want %+v", got, want)
		case err != nil && werr == nil && !strings.Contains(err.Error(), "has the wrong JSON type"):
			t.Fatalf("refused %q (%v), which decodes as %+v", payload, err, want)
		case err != nil && !strings.HasPrefix(err.Error(), "authorizer: "):
			t.Fatalf("error %q does not say where it comes from", err)
		}
	})
}

func ExampleDecodeAuthorizerEvent() {
	ev, err := request.DecodeAuthorizerEvent([]byte(`{"version": "2.0", "type": "REQUEST",
		"routeArn": "arn:aws:execute-api:us-east-1:123456789012:api/$default/GET/hello", "routeKey": "GET /hello",
		"headers": {"x-api-key": "elk_example"}, "requestContext": {"requestId": "r1", "http": {"method": "GET", "sourceIp": "192.0.2.1"}}}`), "x-api-key")
	fmt.Println(ev.Kind == request.HTTPEvent, ev.Request.Resource, ev.Request.APIKey, ev.Request.SourceIP, err)
	// Output: true GET /hello elk_example 192.0.2.1 <nil>
}
