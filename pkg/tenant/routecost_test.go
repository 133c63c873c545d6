package tenant

import (
	"errors"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

func TestRouteCost(t *testing.T) {
	tenantWide := `{"algorithm": "fixed_window", "limit": 100000, "period": "1m"}`
	doc := func(cost string) string {
		return `{"id": "acme", "rules": [` + tenantWide + `], "routes": [{"method": "POST", "resource": "/chat",
		  "rules": [{"algorithm": "sliding_window", "limit": 5000, "period": "1m"}]` + cost + `}]}`
	}
	tests := []struct {
		name, cost string
		want       int64  // RequestCost, when valid
		wantReason string // the error's reason on routes[0].cost, when not
	}{
		{"default", ``, 1, ""},
		{"set", `, "cost": 1000`, 1000, ""},
		{"at the route's capacity", `, "cost": 5000`, 5000, ""},
		{"zero is the default", `, "cost": 0`, 1, ""},
		{"negative", `, "cost": -1`, 0, "must be 1 to 1000000000000"},
		{"over 10^12", `, "cost": 1000000000001`, 0, "must be 1 to 1000000000000"},
		{"over the route's rule", `, "cost": 5001`, 0, "could never be allowed"},
		{"a float", `, "cost": 1.5`, 0, "integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(doc(tt.cost)))
			if tt.wantReason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c := got.Routes[0].RequestCost(); c != tt.want {
					t.Errorf("RequestCost() = %d, want %d", c, tt.want)
				}
				return
			}
			var fe *limiter.FieldError
			if !errors.As(err, &fe) || fe.Field != "routes[0].cost" || !strings.Contains(fe.Reason, tt.wantReason) {
				t.Errorf("Decode: %v, want routes[0].cost: ...%s...", err, tt.wantReason)
			}
		})
	}
}

func TestRouteCostAgainstTenantRules(t *testing.T) {
	in := `{"id": "acme", "rules": [{"algorithm": "fixed_window", "limit": 10, "period": "1m"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 11, "rules": [{"algorithm": "fixed_window", "limit": 100, "period": "1m"}]}]}`
	_, err := Decode([]byte(in))
	var fe *limiter.FieldError
	if !errors.As(err, &fe) || fe.Field != "routes[0].cost" || !strings.Contains(fe.Reason, "capacity 10") {
		t.Errorf("Decode: %v, want routes[0].cost over the tenant-wide capacity 10", err)
	}
}
