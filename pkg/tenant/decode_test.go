package tenant

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

const minimal = `{"id": "acme", "rules": [{"algorithm": "token_bucket", "limit": 10, "period": "1s"}]}`

func TestDecodeDefaults(t *testing.T) {
	got, err := Decode([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if got.Timezone != "UTC" || got.FailMode != FailClosed || got.Status != StatusActive || got.Shadow {
		t.Errorf("defaults: timezone %q, fail_mode %q, status %q, shadow %v", got.Timezone, got.FailMode, got.Status, got.Shadow)
	}
	if r := got.Rules[0]; r.Name != "token_bucket" || r.Burst != 10 {
		t.Errorf("rule not normalized: %+v", r)
	}
	if got.Version != 0 || got.Generation != 0 || got.Routes != nil || got.Metadata != nil {
		t.Errorf("unexpected fields: %+v", got)
	}
}

func TestDecodeFull(t *testing.T) {
	in := `{
	  "id": "acme-eu_1",
	  "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"},
	            {"algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}],
	  "timezone": "Asia/Tokyo", "fail_mode": "open", "status": "suspended", "shadow": true,
	  "routes": [{"method": "POST", "resource": "/orders/{id}", "rules": [{"algorithm": "sliding_log", "limit": 5, "period": "1m"}]},
	             {"method": "ANY", "resource": "$default", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "anonymous": true}],
	  "metadata": {"plan": "pro", "owner/team": "payments"},
	  "version": 7, "generation": 2,
	  "zone_changes": [{"at": 1767225600000000, "from": "UTC", "to": "Asia/Tokyo"}]
	}`
	got, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "acme-eu_1" || got.FailMode != FailOpen || got.Status != StatusSuspended || !got.Shadow ||
		len(got.Routes) != 2 || !got.Routes[1].Anonymous || got.Version != 7 || got.Generation != 2 ||
		len(got.ZoneChanges) != 1 || got.Metadata["owner/team"] != "payments" {
		t.Errorf("decoded %+v", got)
	}
	// The JSON form round-trips exactly.
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Decode(out)
	if err != nil {
		t.Fatalf("re-decoding %s: %v", out, err)
	}
	if !reflect.DeepEqual(again, got) {
		t.Errorf("round trip changed the tenant:\n got %+v\nwant %+v", again, got)
	}
}

func TestDecodeErrors(t *testing.T) {
	rule := `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`
	with := func(extra string) string { return `{"id": "acme", "rules": [` + rule + `], ` + extra + `}` }
	route := func(fields string) string {
		return with(`"routes": [{"method": "GET", "resource": "/a", "rules": [` + rule + `]}, {` + fields + `}]`)
	}
	tests := []struct {
		name, in, wantField, wantReason string
	}{
		{"missing id", `{"rules": [` + rule + `]}`, "id", "is required"},
		{"upper-case id", `{"id": "Acme", "rules": [` + rule + `]}`, "id", "lowercase"},
		{"id starting with a dash", `{"id": "-acme", "rules": [` + rule + `]}`, "id", "starting with"},
		{"id of 64 bytes", `{"id": "` + strings.Repeat("a", 64) + `", "rules": [` + rule + `]}`, "id", "1 to 63"},
		{"id with a separator", `{"id": "a|b", "rules": [` + rule + `]}`, "id", "lowercase"},
		{"no rules", `{"id": "acme"}`, "rules", "at least one rule"},
		{"empty rules", `{"id": "acme", "rules": []}`, "rules", "at least one rule"},
		{"too many rules", `{"id": "acme", "rules": [` + strings.Repeat(rule+",", 8) + rule + `]}`, "rules", "at most 8"},
		{"bad limit", `{"id": "acme", "rules": [{"algorithm": "token_bucket", "limit": 0, "period": "1s"}]}`, "rules[0].limit", "between 1"},
		{"rule not an object", `{"id": "acme", "rules": [` + rule + `, 5]}`, "rules[1]", "JSON object"},
		{"duplicate rule names", `{"id": "acme", "rules": [` + rule + `, ` + rule + `]}`, "rules[1].name", "already used"},
		{"unknown field", with(`"owner": "x"`), "owner", "unknown field"},
		{"unknown rule field", `{"id": "acme", "rules": [{"algorithm": "token_bucket", "limit": 1, "period": "1s", "zone": "UTC"}]}`, "rules[0].zone", "unknown field"},
		{"unknown zone", with(`"timezone": "Mars/Olympus"`), "timezone", "unknown time zone"},
		{"Local zone", with(`"timezone": "Local"`), "timezone", "depends on the machine"},
		{"zone with an empty segment", with(`"timezone": "Europe//Paris"`), "timezone", "empty path segment"},
		{"zone as a path", with(`"timezone": "../etc/passwd"`), "timezone", "letters, digits"},
		{"bad fail mode", with(`"fail_mode": "half"`), "fail_mode", `"open" or "closed"`},
		{"bad status", with(`"status": "gone"`), "status", `"active" or "suspended"`},
		{"shadow as a string", with(`"shadow": "yes"`), "shadow", "boolean"},
		{"version as a float", with(`"version": 1.5`), "version", "integer"},
		{"negative generation", with(`"generation": -1`), "generation", "not be negative"},
		{"route method", route(`"method": "get", "resource": "/a", "rules": [` + rule + `]`), "routes[1].method", "one of GET"},
		{"route resource", route(`"method": "GET", "resource": "orders", "rules": [` + rule + `]`), "routes[1].resource", "resource path"},
		{"route resource with a space", route(`"method": "GET", "resource": "/a b", "rules": [` + rule + `]`), "routes[1].resource", "no spaces"},
		{"$default needs ANY", route(`"method": "GET", "resource": "$default", "rules": [` + rule + `]`), "routes[1].method", "ANY"},
		{"route without rules", route(`"method": "GET", "resource": "/b"`), "routes[1].rules", "at least one rule"},
		{"route rule limit", route(`"method": "GET", "resource": "/b", "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1s", "burst": 2}]`), "routes[1].rules[0].burst", "applies to"},
		{"route rule integer", route(`"method": "GET", "resource": "/b", "rules": [{"algorithm": "fixed_window", "limit": 1e3, "period": "1s"}]`), "routes[1].rules[0].limit", "JSON integer"},
		{"route unknown field", route(`"method": "GET", "resource": "/b", "rules": [` + rule + `], "zone": "x"`), "routes[1].zone", "unknown field"},
		{"route repeated", route(`"method": "GET", "resource": "/a", "rules": [` + rule + `]`), "routes[1]", "repeats routes[0]"},
		{"route not an object", with(`"routes": [[]]`), "routes[0]", "object"},
		{"too many routes", with(`"routes": [` + strings.Repeat(`{},`, 64) + `{}]`), "routes", "at most 64"},
		{"metadata key", with(`"metadata": {"a b": "x"}`), `metadata["a b"]`, "a key is"},
		{"metadata value too long", with(`"metadata": {"k": "` + strings.Repeat("v", 257) + `"}`), `metadata["k"]`, "at most 256"},
		{"metadata value control", with(`"metadata": {"k": "a\u0000b"}`), `metadata["k"]`, "printable"},
		{"metadata value a number", with(`"metadata": {"k": 5}`), "metadata", "string"},
		{"zone change unknown field", with(`"timezone": "Asia/Tokyo", "zone_changes": [{"at": 1, "from": "UTC", "to": "Asia/Tokyo", "x": 1}]`), "zone_changes[0].x", "unknown field"},
		{"zone change out of step", with(`"timezone": "Asia/Tokyo", "zone_changes": [{"at": 1, "from": "UTC", "to": "Europe/Paris"}]`), "zone_changes[0].to", "tenant's timezone"},
		{"zone changes out of order", with(`"timezone": "Asia/Tokyo", "zone_changes": [{"at": 5, "from": "UTC", "to": "Europe/Paris"}, {"at": 4, "from": "Europe/Paris", "to": "Asia/Tokyo"}]`), "zone_changes[1].at", "in order"},
		{"zone change to itself", with(`"zone_changes": [{"at": 5, "from": "UTC", "to": "UTC"}]`), "zone_changes[0].to", "changes from"},
		{"top level array", `[]`, "tenant", "object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			var fe *limiter.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Decode: %v, want a *limiter.FieldError", err)
			}
			if fe.Field != tt.wantField || !strings.Contains(fe.Reason, tt.wantReason) {
				t.Errorf("got %q (field %q), want field %q with reason containing %q", err, fe.Field, tt.wantField, tt.wantReason)
			}
		})
	}
}

func TestDecodeSyntax(t *testing.T) {
	for _, in := range []string{``, `{`, `{"id": "acme"} {}`, `{"id": "acme",}`, strings.Repeat(" ", MaxJSONBytes+1)} {
		if _, err := Decode([]byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Decode(%.20q): %v, want ErrSyntax", in, err)
		}
	}
}
