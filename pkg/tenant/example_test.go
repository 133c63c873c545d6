package tenant_test

import (
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// A tenant's rules are compiled once; each request then finds its route and the
// decisions to make, each under its own counter key.
func Example() {
	t, err := tenant.Decode([]byte(`{
	  "id": "acme",
	  "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}],
	  "timezone": "Asia/Tokyo",
	  "routes": [{"method": "POST", "resource": "/orders",
	              "rules": [{"algorithm": "token_bucket", "limit": 5, "period": "1s"}]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	sets, err := t.Sets() // cache with the tenant
	if err != nil {
		fmt.Println(err)
		return
	}
	route, _ := sets.Match("POST", "/orders") // v1 resource, or a v2 routeKey
	for _, c := range sets.Checks(nil, route, tenant.Caller{KeyID: "ab12cd34", Addr: "192.0.2.1"}) {
		fmt.Printf("%q %s %s: %s\n", c.Route, c.Scope, c.Set.Rule(0).Name, c.Key)
	}
	// Output:
	// "POST /orders" tenant token_bucket: c1|4:acme|0|12:POST /orders|1:t
	// "" tenant daily: c1|4:acme|0|0:|1:t
}

// Decode names the offending field by its path.
func ExampleDecode() {
	_, err := tenant.Decode([]byte(`{"id": "acme", "rules": [{"algorithm": "token_bucket", "limit": 5, "period": "1s"}],
	  "routes": [{"method": "GET", "resource": "/orders", "rules": [{"algorithm": "fixed_window", "limit": 0, "period": "1m"}]}]}`))
	fmt.Println(err)
	// Output:
	// routes[0].rules[0].limit = 0: must be between 1 and 1000000000000
}
