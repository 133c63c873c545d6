package tenant

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// FuzzDecodeTenant checks that Decode never panics, that it fails only with a
// *limiter.FieldError naming a field or with ErrSyntax (and ErrSyntax only for input
// that is not one JSON value, or too long), and that what it accepts is valid, compiles
// into Sets and survives a JSON round trip unchanged. The seed corpus is in
// testdata/fuzz/FuzzDecodeTenant.
func FuzzDecodeTenant(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(`{"id": "a", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "month"}], "timezone": "America/New_York",
		"routes": [{"method": "ANY", "resource": "$default", "rules": [{"algorithm": "leaky_bucket", "limit": 5, "period": "1s", "burst": 7}], "anonymous": true}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		if err != nil {
			var fe *limiter.FieldError
			switch {
			case errors.As(err, &fe):
				if fe.Field == "" || fe.Reason == "" {
					t.Fatalf("FieldError without a field or reason: %#v", fe)
				}
			case errors.Is(err, ErrSyntax):
				if json.Valid(data) && len(data) <= MaxJSONBytes {
					t.Fatalf("ErrSyntax for valid JSON: %v", err)
				}
			default:
				t.Fatalf("error is neither a FieldError nor ErrSyntax: %T %v", err, err)
			}
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("Decode accepted a tenant that Validate rejects: %v", err)
		}
		if _, err := got.Sets(); err != nil {
			t.Fatalf("Sets: %v", err)
		}
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Fatalf("round trip changed the tenant:\n got %+v\nwant %+v", again, got)
		}
	})
}
