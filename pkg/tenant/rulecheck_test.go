package tenant_test

import (
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// CheckRules visits the tenant-wide rules, every route's and every override's, and names the first rule
// the check refuses by its path, whether the check returns a FieldError or not.
func TestCheckRulesNamesTheRule(t *testing.T) {
	tn, err := tenant.Decode([]byte(`{"id": "a", "rules": [
		{"name": "one", "algorithm": "fixed_window", "limit": 1, "period": "1s"},
		{"name": "two", "algorithm": "fixed_window", "limit": 2, "period": "1s"}],
	  "routes": [{"method": "GET", "resource": "/x", "rules": [{"name": "three", "algorithm": "fixed_window", "limit": 3, "period": "1s"}]},
	             {"method": "GET", "resource": "/y", "rules": [{"name": "four", "algorithm": "sliding_log", "limit": 4, "period": "1s"}]}],
	  "overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [{"name": "one", "algorithm": "fixed_window", "limit": 5, "period": "1s"},
	                 {"name": "five", "algorithm": "sliding_log", "limit": 5000, "period": "1m"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(name string, asField bool) func(limiter.Rule) error {
		return func(r limiter.Rule) error {
			switch {
			case r.Name != name:
				return nil
			case asField:
				return &limiter.FieldError{Field: "limit", Reason: "too large here"}
			}
			return errors.New("not here")
		}
	}
	for _, tt := range []struct {
		rule    string
		asField bool
		want    string
	}{
		{"two", true, "rules[1].limit"},
		{"three", true, "routes[0].rules[0].limit"},
		{"four", false, "routes[1].rules[0]"},
		{"five", true, "overrides[0].rules[1].limit"},
	} {
		var fe *limiter.FieldError
		if err := tn.CheckRules(refuse(tt.rule, tt.asField)); !errors.As(err, &fe) || fe.Field != tt.want {
			t.Errorf("refusing %s: %v, want a FieldError on %s", tt.rule, err, tt.want)
		}
	}
	if err := tn.CheckRules(func(limiter.Rule) error { return nil }); err != nil {
		t.Errorf("a check that refuses nothing: %v", err)
	}
}
