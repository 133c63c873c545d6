package admin_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

var update = flag.Bool("update", false, "rewrite events/admin/*.expected.json from the handler's answers")

const (
	eventsDir   = "../../events/admin"
	tenantsFile = "../../examples/tenants.json"
)

// eventKey is the key the issue-key sample is answered with: the test injects it,
// where a deployment draws a random one.
func eventKey(t *testing.T) apikey.Key {
	k, err := apikey.Parse("elk_k7q2m9xa_" + base64.RawURLEncoding.EncodeToString([]byte("sample-event-key-not-a-secret!!!")))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestEvents runs every sample event of events/admin through Invoke, each against the
// tenants of examples/tenants.json in memory stores at 2026-01-10T12:00:00Z, and
// compares the answer with <name>.expected.json (the body as JSON, so that the file
// may be reformatted). go test -run TestEvents -update rewrites the expected files.
func TestEvents(t *testing.T) {
	names := eventNames(t)
	want := []string{"create", "get", "invalid-timezone", "issue-key", "list", "patch", "reset", "revoke-key", "usage"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("events %v, want %v", names, want)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			event, err := os.ReadFile(filepath.Join(eventsDir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := eventHandler(t).Invoke(t.Context(), event)
			if err != nil {
				t.Fatal(err)
			}
			checkEventAgainstSpec(t, event, got)
			path := filepath.Join(eventsDir, name+".expected.json")
			if *update {
				writeExpected(t, path, got)
				return
			}
			expected, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := normalize(t, got), normalize(t, expected); !reflect.DeepEqual(g, w) {
				t.Errorf("%s:\ngot  %s\nwant %s", name, got, expected)
			}
		})
	}
}

func eventNames(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(eventsDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".expected.json") {
			if _, err := os.Stat(strings.TrimSuffix(f, ".expected.json") + ".json"); err != nil {
				t.Errorf("%s has no event beside it", base)
			}
			continue
		}
		names = append(names, strings.TrimSuffix(base, ".json"))
	}
	return names
}

func eventHandler(t *testing.T) *admin.Handler {
	tenants, err := memory.LoadFile(tenantsFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &clock{}
	c.Set(t0)
	key := eventKey(t)
	h, err := admin.New(admin.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}),
		Now: c.Now, NewKey: func() apikey.Key { return key }})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// normalize decodes an answer, with its body decoded too when it is JSON.
func normalize(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if body, ok := m["body"].(string); ok && body != "" {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err == nil {
			m["body"] = v
		}
	}
	return m
}

func writeExpected(t *testing.T, path string, answer []byte) {
	var out bytes.Buffer
	if err := json.Indent(&out, answer, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkEventAgainstSpec validates an event's request and its answer against the
// OpenAPI document, as env.do does for the handler tests.
func checkEventAgainstSpec(t *testing.T, event, answer []byte) {
	var ev struct {
		Version        string            `json:"version"`
		HTTPMethod     string            `json:"httpMethod"`
		Path           string            `json:"path"`
		RawPath        string            `json:"rawPath"`
		RawQuery       string            `json:"rawQueryString"`
		Query          map[string]string `json:"queryStringParameters"`
		Headers        map[string]string `json:"headers"`
		Body           string            `json:"body"`
		RequestContext struct {
			HTTP struct{ Method string } `json:"http"`
		} `json:"requestContext"`
	}
	var resp struct {
		StatusCode int               `json:"statusCode"`
		Headers    map[string]string `json:"headers"`
		Body       string            `json:"body"`
	}
	if err := json.Unmarshal(event, &ev); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		t.Fatal(err)
	}
	method, path := ev.HTTPMethod, ev.Path
	if ev.Version == "2.0" {
		method, path = ev.RequestContext.HTTP.Method, ev.RawPath+"?"+ev.RawQuery
	} else if len(ev.Query) > 0 {
		q := url.Values{}
		for k, v := range ev.Query {
			q.Set(k, v)
		}
		path += "?" + q.Encode()
	}
	var headers []string
	for k, v := range ev.Headers {
		headers = append(headers, k, v)
	}
	header := http.Header{}
	for k, v := range resp.Headers {
		header.Set(k, v)
	}
	loadSpec(t).check(t, method, path, ev.Body, headers, response{status: resp.StatusCode, header: header, body: []byte(resp.Body)})
}
