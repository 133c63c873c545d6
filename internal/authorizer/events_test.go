package authorizer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/authorizer"
)

// contextTypes is the JSON type of every context key, as docs/design.md fixes them.
var contextTypes = map[string]string{
	"tenantId": "string", "rule": "string", "limit": "number", "remaining": "number",
	"reset": "number", "retryAfter": "number", "delayMs": "number", "failOpen": "boolean", "failClosed": "boolean", "shadow": "boolean",
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "other"
}

// eventFiles lists the sample events (not their expected results or the tenants file).
func eventFiles(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(eventsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".expected.json") && filepath.Base(f) != "tenants.json" {
			out = append(out, f)
		}
	}
	if len(out) < 8 {
		t.Fatalf("found %d events in %s, want at least 8", len(out), eventsDir)
	}
	return out
}

// modeOf returns the HTTP API response format an event file is written for.
func modeOf(file string) authorizer.HTTPResponse {
	if strings.HasPrefix(filepath.Base(file), "http-iam-") {
		return authorizer.IAMResponse
	}
	return authorizer.SimpleResponse
}

// Every event of events/authorizer, answered by a fresh handler at the test instant,
// gives exactly its expected result: the whole JSON, which pins the policy's effect and
// resource and every context key with its JSON type.
func TestEventsGiveTheirExpectedResults(t *testing.T) {
	for _, file := range eventFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			payload := readFile(t, file)
			var want map[string]any
			if err := json.Unmarshal(readFile(t, strings.TrimSuffix(file, ".json")+".expected.json"), &want); err != nil {
				t.Fatal(err)
			}
			hs := newHarness(t, modeOf(file), nil)
			out, err := hs.invoke(t, payload)
			if msg, isErr := want["errorMessage"]; isErr {
				checkError(t, err, msg.(string), want["errorType"].(string))
				return
			}
			if err != nil {
				t.Fatalf("error %v, want %v", err, want)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("reply %s: %v", out, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("reply\n%s\nwant\n%s", out, readFile(t, strings.TrimSuffix(file, ".json")+".expected.json"))
			}
			checkContext(t, got["context"])
			checkPolicy(t, got, payload)
		})
	}
}

// checkError checks err as the Lambda runtime reports it: the message, and the type
// name aws-lambda-go puts in errorType.
func checkError(t *testing.T, err error, msg, typ string) {
	t.Helper()
	if err == nil || err.Error() != msg {
		t.Fatalf("error %v, want %q", err, msg)
	}
	rt := reflect.TypeOf(err)
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	if rt.Name() != typ {
		t.Errorf("error type %s, want %s", rt.Name(), typ)
	}
}

// checkContext checks that the context holds exactly docs/design.md's keys, each of its type.
func checkContext(t *testing.T, c any) {
	t.Helper()
	m, ok := c.(map[string]any)
	if !ok {
		t.Fatalf("context %v is not an object", c)
	}
	for k, typ := range contextTypes {
		if got := jsonType(m[k]); got != typ {
			t.Errorf("context %s = %v: %s, want %s", k, m[k], got, typ)
		}
	}
	if len(m) != len(contextTypes) {
		t.Errorf("context has %d keys, want %d: %v", len(m), len(contextTypes), m)
	}
}

// checkPolicy checks that a policy names only this request's method or route ARN.
func checkPolicy(t *testing.T, got map[string]any, payload []byte) {
	t.Helper()
	doc, ok := got["policyDocument"].(map[string]any)
	if !ok {
		return // the simple response
	}
	var ev struct{ MethodArn, RouteArn string }
	_ = json.Unmarshal(payload, &ev)
	arn := ev.MethodArn + ev.RouteArn
	stmts := doc["Statement"].([]any)
	if len(stmts) != 1 {
		t.Fatalf("%d statements, want 1", len(stmts))
	}
	s := stmts[0].(map[string]any)
	if res := s["Resource"].([]any); len(res) != 1 || res[0] != arn {
		t.Errorf("policy resource %v, want only %s", res, arn)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
