package tenant

import (
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

func routedTenant(t *testing.T) Tenant {
	t.Helper()
	got, err := Decode([]byte(`{"id": "acme", "timezone": "Asia/Tokyo",
	  "rules": [{"algorithm": "fixed_window", "limit": 1000, "period": "day"}],
	  "routes": [
	    {"method": "GET", "resource": "/orders/{id}", "rules": [{"algorithm": "token_bucket", "limit": 10, "period": "1s"}]},
	    {"method": "ANY", "resource": "/orders/{id}", "rules": [{"algorithm": "token_bucket", "limit": 2, "period": "1s"}]},
	    {"method": "POST", "resource": "/orders", "rules": [{"algorithm": "sliding_log", "limit": 5, "period": "1m"}]},
	    {"method": "ANY", "resource": "$default", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "anonymous": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestMatch(t *testing.T) {
	sets, err := routedTenant(t).Sets()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, target string
		want                 string // the matched route's Name, "" for none
	}{
		{"v1 exact method", "GET", "/orders/{id}", "GET /orders/{id}"},
		{"v1 ANY for another method", "DELETE", "/orders/{id}", "ANY /orders/{id}"},
		{"v1 lower-case method", "post", "/orders", "POST /orders"},
		{"v1 method without a route", "GET", "/orders", ""},
		{"v1 path is not a resource", "GET", "/orders/42", ""},
		{"v1 resources are case-sensitive", "GET", "/Orders/{id}", ""},
		{"v2 route key alone", "", "GET /orders/{id}", "GET /orders/{id}"},
		{"v2 request method wins over the key's", "PUT", "ANY /orders/{id}", "ANY /orders/{id}"},
		{"v2 ANY route key, GET request", "GET", "ANY /orders/{id}", "GET /orders/{id}"},
		{"v2 $default", "GET", "$default", "$default"},
		{"v2 $default without a method", "", "$default", "$default"},
		{"unknown", "GET", "/nope", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := sets.Match(tt.method, tt.target)
			name := ""
			if ok {
				name = got.Route.Name()
			}
			if name != tt.want {
				t.Errorf("Match(%q, %q) = %q, want %q", tt.method, tt.target, name, tt.want)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	ten := routedTenant(t)
	sets, err := ten.Sets()
	if err != nil {
		t.Fatal(err)
	}
	if got := sets.Tenant.Zone().Location().String(); got != "Asia/Tokyo" {
		t.Errorf("tenant set zone %q", got)
	}
	route, _ := sets.Match("GET", "/orders/{id}")
	id := IdentityKey("ab12cd34")
	checks := sets.Checks(route, id)
	if len(checks) != 2 {
		t.Fatalf("%d checks, want the route's then the tenant's", len(checks))
	}
	tenantKey := CounterKey("acme", 0, "", id)
	if checks[0].Route != "GET /orders/{id}" || checks[0].Set != route.Set || checks[0].Key == tenantKey {
		t.Errorf("route check %+v", checks[0])
	}
	if checks[1].Route != "" || checks[1].Set != sets.Tenant || checks[1].Key != tenantKey {
		t.Errorf("tenant check %+v", checks[1])
	}
	if only := sets.Checks(nil, id); len(only) != 1 || only[0].Key != tenantKey {
		t.Errorf("Checks without a route: %+v", only)
	}
	reset, _ := Reset(ten).Sets()
	if reset.Checks(nil, id)[0].Key == tenantKey {
		t.Error("a reset tenant keeps its counter keys")
	}
	if got := route.Set.Rule(0); got.Algorithm != limiter.TokenBucket || got.Limit != 10 {
		t.Errorf("route rule %+v", got)
	}
}
