// Package samlocal does what `sam local invoke -e` does, without Docker: each function's
// bootstrap, built for the host as the Makefile builds it for Lambda, runs under the
// Lambda runtime interface emulator and answers every event file of events/<function>/
// as its expected file says.
//
// The expected files were recorded with an injected clock and a known issued key; a
// real invocation answers with the time it runs at and a random key. Those values, and
// only those, are set aside before comparing: RFC 3339 instants, the authorizer's
// reset (epoch seconds), a zone change's instant (microseconds), keys and the id of
// a newly issued key, and Content-Length.
package samlocal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// functions are the template's functions, their packages, build tags (the Makefile's),
// events and environment.
var functions = []struct {
	name, pkg string
	tags      []string
	events    string
	env       map[string]string
}{
	{"AuthorizerFunction", "../../functions/authorizer", []string{"edgelimit.dynamodb"}, "../../events/authorizer", map[string]string{
		"EDGELIMIT_BACKEND": "memory", "EDGELIMIT_TENANTS_FILE": "events/authorizer/tenants.json",
		"EDGELIMIT_ANONYMOUS_TENANT": "public"}},
	{"AdminFunction", "../../functions/admin", nil, "../../events/admin", map[string]string{
		"EDGELIMIT_BACKEND": "memory", "EDGELIMIT_TENANTS_FILE": "examples/tenants.json"}},
}

func TestEventsUnderEmulator(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range functions {
		t.Run(fn.name, func(t *testing.T) {
			bootstrap := testenv.BuildBootstrap(t, fn.pkg, fn.tags...)
			events, _ := filepath.Glob(filepath.Join(fn.events, "*.expected.json"))
			sort.Strings(events)
			if len(events) == 0 {
				t.Fatalf("no events in %s", fn.events)
			}
			for _, expected := range events {
				name := strings.TrimSuffix(filepath.Base(expected), ".expected.json")
				t.Run(name, func(t *testing.T) {
					env := map[string]string{}
					for k, v := range fn.env {
						if strings.HasSuffix(k, "_FILE") {
							v = filepath.Join(root, v)
						}
						env[k] = v
					}
					if strings.HasPrefix(name, "http-iam-") {
						env["EDGELIMIT_HTTP_API_RESPONSE"] = "iam"
					}
					invokeAndCompare(t, bootstrap, env, filepath.Join(fn.events, name+".json"), expected)
				})
			}
		})
	}
}

// invokeAndCompare invokes a fresh function (events are independent: each starts from
// the tenants file) with the event and compares its answer with the expected file.
func invokeAndCompare(t *testing.T, bootstrap string, env map[string]string, event, expected string) {
	payload, err := os.ReadFile(event)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(expected)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := testenv.StartLambda(t, bootstrap, env).Invoke(t, payload)
	g, w := normalized(t, got), normalized(t, want)
	if !reflect.DeepEqual(g, w) {
		gj, _ := json.MarshalIndent(g, "", "  ")
		wj, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("answer differs from %s (volatile values set aside)\ngot:  %s\nwant: %s", expected, gj, wj)
	}
}

func normalized(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return normalize(v, "")
}

var (
	instant = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)
	keyLike = regexp.MustCompile(`^elk_[a-z0-9]{8}_`)
)

// normalize sets aside what depends on the clock or on randomness (see the package doc).
func normalize(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		_, issued := x["key"] // a newly issued key: its id is random too
		for k, val := range x {
			switch {
			case (k == "reset" || k == "at") && isNumber(val), k == "Content-Length", k == "errorType" || k == "stackTrace":
				x[k] = "<volatile>"
			case k == "key_id" && issued, k == "Location":
				x[k] = "<issued>"
			case k == "body":
				x[k] = normalizeBody(val)
			default:
				x[k] = normalize(val, k)
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalize(x[i], key)
		}
		return x
	case string:
		if instant.MatchString(x) {
			return "<instant>"
		}
		if keyLike.MatchString(x) {
			return "<key>"
		}
	}
	return v
}

// normalizeBody parses a proxy response's JSON body, so that its values can be set aside.
func normalizeBody(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	var parsed any
	if json.Unmarshal([]byte(s), &parsed) != nil {
		return s
	}
	return normalize(parsed, "body")
}

func isNumber(v any) bool { _, ok := v.(float64); return ok }
