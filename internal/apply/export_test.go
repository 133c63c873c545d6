package apply_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

// TestExportThenApplyWritesNothing: what export writes, YAML or JSON, applies (with
// prune) as no change and no write, for plans, tenants with routes, metadata, time
// zones and fail modes, and active and revoked keys; a second export is the same text.
func TestExportThenApplyWritesNothing(t *testing.T) {
	s := newServer(t)
	seed(t, s)
	s.putTenant(t, `{"id": "hooli", "timezone": "America/New_York", "shadow": true, "status": "suspended",
		"rules": [{"algorithm": "leaky_bucket", "limit": 10, "period": "1s"}, {"algorithm": "fixed_window", "limit": 1000, "period": "1h", "anchor": "first_request"}, {"name": "daily", "algorithm": "fixed_window", "limit": 9000, "period": "day"}],
		"routes": [{"method": "ANY", "resource": "/public", "anonymous": true, "rules": [{"algorithm": "sliding_log", "limit": 3, "period": "10s"}]}],
		"metadata": {"team": "on"}}`)
	if code := s.call(t, http.MethodDelete, "/tenants/acme/keys/acmekey3", "", ""); code != http.StatusOK {
		t.Fatalf("revoking acmekey3: %d", code)
	}
	for _, format := range []struct {
		name string
		json bool
	}{{"export.yaml", false}, {"export.json", true}} {
		t.Run(format.name, func(t *testing.T) {
			c := s.client(t)
			data, err := apply.Export(context.Background(), c, format.json)
			if err != nil {
				t.Fatal(err)
			}
			want, err := apply.Parse(format.name, data)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if len(want.Plans) != 1 || len(want.Tenants) != 4 || len(want.Keys) != 5 || want.Keys["acmekey3"].Status != apply.KeyRevoked {
				t.Errorf("the export holds %d plans, %d tenants, %d keys (acmekey3 %+v); want 1, 4, 5 (acmekey3 revoked):\n%s",
					len(want.Plans), len(want.Tenants), len(want.Keys), want.Keys["acmekey3"], data)
			}
			var out bytes.Buffer
			s.writes.Store(0)
			if err := apply.Run(context.Background(), c, want, true, false, &out); err != nil {
				t.Fatal(err)
			}
			if n := s.writes.Load(); n != 0 || out.String() != "0 to add, 0 to change, 0 to delete\n" {
				t.Errorf("apply of the export sent %d writes, want 0; output:\n%s\nexport:\n%s", n, out.String(), data)
			}
			again, err := apply.Export(context.Background(), c, format.json)
			if err != nil || !bytes.Equal(again, data) {
				t.Errorf("a second export differs (%v):\n%s\nfirst:\n%s", err, again, data)
			}
		})
	}
}

// TestExportYAMLQuotesWhatYAMLWouldMisread: strings that plain YAML would read as
// another type ("on", "123", "", a key id of digits) stay strings through export and
// Parse.
func TestExportYAMLQuotesWhatYAMLWouldMisread(t *testing.T) {
	s := newServer(t)
	s.putTenant(t, `{"id": "quoted", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}],
		"metadata": {"a": "on", "b": "123", "c": "", "d": "null", "e": "- x", "f": "1e3"}}`)
	s.putKey(t, "quoted", "12345678") // a key id that plain YAML reads as a number
	data, err := apply.Export(context.Background(), s.client(t), false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := apply.Parse("x.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	md, _ := want.Tenants["quoted"]["metadata"].(map[string]any)
	for k, v := range map[string]string{"a": "on", "b": "123", "c": "", "d": "null", "e": "- x", "f": "1e3"} {
		if md[k] != v {
			t.Errorf("metadata.%s: %#v after export and Parse, want %q\n%s", k, md[k], v, data)
		}
	}
	if want.Keys["12345678"].Tenant != "quoted" {
		t.Errorf("key 12345678 after export and Parse: %+v\n%s", want.Keys, data)
	}
	if !strings.Contains(string(data), `a: "on"`) {
		t.Errorf("metadata.a is not quoted (YAML 1.1 reads on as true):\n%s", data)
	}
	if !strings.HasPrefix(string(data), "plans: []\ntenants:\n  - id: quoted\n") {
		t.Errorf("export does not start with the plans, then the tenant's id:\n%s", data)
	}
}

// TestRouteCostOnAPlanExportsAndApplies: a route with a cost above 1 on a plan,
// and on a tenant that takes its tenant-wide rules from a plan, is valid (the admin
// API stores both: the costs are within every rule the routes' requests meet), so
// export must write them and applying the export must change nothing
// (docs/reference.md, "Limits as code": "applying an export changes nothing").
func TestRouteCostOnAPlanExportsAndApplies(t *testing.T) {
	s := newServer(t)
	if code, body := s.send(t, http.MethodPut, "/plans/llm", "", `{"rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 100000, "period": "1m"}],
		"routes": [{"method": "POST", "resource": "/embed", "cost": 500, "rules": [{"name": "embed", "algorithm": "fixed_window", "limit": 10000, "period": "1m"}]}]}`); code != http.StatusCreated {
		t.Fatalf("PUT /plans/llm: %d %s", code, body)
	}
	s.putTenant(t, `{"id": "chatco", "plan": "llm",
		"routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "sliding_window", "limit": 50000, "period": "1m"}]}]}`)
	c := s.client(t)
	data, err := apply.Export(context.Background(), c, false)
	if err != nil {
		t.Fatalf("export of a plan and a tenant the admin API accepted: %v", err)
	}
	state, err := apply.Parse("export.yaml", data)
	if err != nil {
		t.Fatalf("the export does not parse: %v\n%s", err, data)
	}
	var out bytes.Buffer
	s.writes.Store(0)
	if err := apply.Run(context.Background(), c, state, true, false, &out); err != nil {
		t.Fatal(err)
	}
	if n := s.writes.Load(); n != 0 || out.String() != "0 to add, 0 to change, 0 to delete\n" {
		t.Errorf("applying the export sent %d writes, want 0:\n%s", n, out.String())
	}
}
