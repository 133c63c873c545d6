package tenant

import (
	"errors"
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
	if got := sets.Tenant[0].Set.Zone().Location().String(); got != "Asia/Tokyo" {
		t.Errorf("tenant set zone %q", got)
	}
	route, _ := sets.Match("GET", "/orders/{id}")
	who := Caller{KeyID: "ab12cd34", Addr: "192.0.2.1"}
	checks := sets.Checks(nil, route, who)
	if len(checks) != 2 {
		t.Fatalf("%d checks, want the route's then the tenant's", len(checks))
	}
	tenantKey := CounterKey("acme", 0, "", IdentityTenant)
	if checks[0].Route != "GET /orders/{id}" || checks[0].Set != route.Sets[0].Set || checks[0].Key == tenantKey || checks[0].Scope != limiter.ScopeTenant {
		t.Errorf("route check %+v", checks[0])
	}
	if checks[1].Route != "" || checks[1].Set != sets.Tenant[0].Set || checks[1].Key != tenantKey {
		t.Errorf("tenant check %+v", checks[1])
	}
	other := Caller{KeyID: "zz99yy88"}
	if only := sets.Checks(nil, nil, other); len(only) != 1 || only[0].Key != tenantKey {
		t.Errorf("another key's checks without a route: %+v; want the one tenant counter", only)
	}
	reset, _ := Reset(ten).Sets()
	if reset.Checks(nil, nil, who)[0].Key == tenantKey {
		t.Error("a reset tenant keeps its counter keys")
	}
	if got := route.Sets[0].Set.Rule(0); got.Algorithm != limiter.TokenBucket || got.Limit != 10 {
		t.Errorf("route rule %+v", got)
	}
}

// TestScopes: one counter per scope, keyed by the tenant, the key or the address.
func TestScopes(t *testing.T) {
	ten, err := Decode([]byte(`{"id": "acme",
	  "rules": [{"name": "org", "algorithm": "fixed_window", "limit": 100, "period": "day"},
	            {"name": "per-key", "algorithm": "token_bucket", "limit": 10, "period": "1s", "scope": "key"},
	            {"name": "per-ip", "algorithm": "fixed_window", "limit": 50, "period": "1m", "scope": "ip"},
	            {"name": "org-burst", "algorithm": "token_bucket", "limit": 20, "period": "1s", "scope": "tenant"}],
	  "routes": [{"method": "ANY", "resource": "/public", "anonymous": true,
	              "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1s"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sets, err := ten.Sets()
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		scope    limiter.Scope
		identity string
		rules    int
	}
	for _, tt := range []struct {
		name string
		who  Caller
		want []want
	}{
		{"a key", Caller{KeyID: "ab12cd34", Addr: "192.0.2.1"},
			[]want{{limiter.ScopeTenant, IdentityTenant, 2}, {limiter.ScopeKey, IdentityKey("ab12cd34"), 1}, {limiter.ScopeIP, IdentityIP("192.0.2.1"), 1}}},
		{"no key: key scope counts the address, apart from the ip scope", Caller{Addr: "192.0.2.1"},
			[]want{{limiter.ScopeTenant, IdentityTenant, 2}, {limiter.ScopeKey, IdentityAddressKey("192.0.2.1"), 1}, {limiter.ScopeIP, IdentityIP("192.0.2.1"), 1}}},
		{"no address", Caller{KeyID: "ab12cd34"},
			[]want{{limiter.ScopeTenant, IdentityTenant, 2}, {limiter.ScopeKey, IdentityKey("ab12cd34"), 1}, {limiter.ScopeIP, IdentityIP("unknown"), 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checks := sets.Checks(nil, nil, tt.who)
			if len(checks) != len(tt.want) {
				t.Fatalf("%d checks, want %d", len(checks), len(tt.want))
			}
			for i, w := range tt.want {
				c := checks[i]
				if c.Scope != w.scope || c.Key != CounterKey("acme", 0, "", w.identity) || c.Set.Len() != w.rules {
					t.Errorf("check %d: %s %q with %d rules; want %s %q with %d", i, c.Scope, c.Key, c.Set.Len(), w.scope, w.identity, w.rules)
				}
			}
		})
	}
	route, _ := sets.Match("GET", "/public")
	if rc := sets.RouteChecks(nil, route, Caller{Addr: "192.0.2.1"}); len(rc) != 1 || rc[0].Scope != limiter.ScopeIP {
		t.Errorf("an anonymous route's rules count per address by default: %+v", rc)
	}
}

// TestScopeDefaults: a tenant stored before scopes existed decodes to the documented
// defaults: tenant for its rules and its routes', ip on an anonymous route.
func TestScopeDefaults(t *testing.T) {
	got := routedTenant(t)
	if s := got.Rules[0].Scope; s != limiter.ScopeTenant {
		t.Errorf("tenant rule scope %q, want tenant", s)
	}
	if s := got.Routes[0].Rules[0].Scope; s != limiter.ScopeTenant {
		t.Errorf("route rule scope %q, want tenant", s)
	}
	if s := got.Routes[3].Rules[0].Scope; s != limiter.ScopeIP {
		t.Errorf("anonymous route rule scope %q, want ip", s)
	}
}

func TestScopeRefused(t *testing.T) {
	for _, tt := range []struct{ name, doc, field string }{
		{"key scope on an anonymous route", `{"id": "a", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}],
		  "routes": [{"method": "GET", "resource": "/p", "anonymous": true, "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s", "scope": "key"}]}]}`,
			"routes[0].rules[0].scope"},
		{"unknown scope", `{"id": "a", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s", "scope": "org"}]}`, "rules[0].scope"},
		{"names unique across scopes", `{"id": "a", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"},
		  {"algorithm": "fixed_window", "limit": 2, "period": "1s", "scope": "key"}]}`, "rules[1].name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.doc))
			var fe *limiter.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("Decode: %v; want a field error on %s", err, tt.field)
			}
		})
	}
}

// TestChecksNeverShareAKey: whoever sends a request (a key, an address, both,
// neither), its checks have distinct counter keys, as one store decision requires. A
// request without a key once had its key-scope and ip-scope counters under one key.
func TestChecksNeverShareAKey(t *testing.T) {
	ten, err := Decode([]byte(`{"id": "acme",
	  "rules": [{"name": "org", "algorithm": "fixed_window", "limit": 100, "period": "day"},
	            {"name": "per-key", "algorithm": "token_bucket", "limit": 10, "period": "1s", "scope": "key"},
	            {"name": "per-ip", "algorithm": "fixed_window", "limit": 50, "period": "1m", "scope": "ip"}],
	  "routes": [{"method": "GET", "resource": "/public", "anonymous": true,
	              "rules": [{"name": "p", "algorithm": "fixed_window", "limit": 5, "period": "1s"},
	                        {"name": "p-org", "algorithm": "fixed_window", "limit": 50, "period": "1s", "scope": "tenant"}]},
	             {"method": "GET", "resource": "/orders",
	              "rules": [{"name": "o", "algorithm": "fixed_window", "limit": 5, "period": "1s", "scope": "key"},
	                        {"name": "o-ip", "algorithm": "fixed_window", "limit": 5, "period": "1s", "scope": "ip"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sets, err := ten.Sets()
	if err != nil {
		t.Fatal(err)
	}
	callers := []Caller{{KeyID: "ab12cd34", Addr: "192.0.2.1"}, {Addr: "192.0.2.1"}, {KeyID: "ab12cd34"}, {}}
	for _, who := range callers {
		for _, resource := range []string{"/public", "/orders", "/none"} {
			route, _ := sets.Match("GET", resource)
			seen := map[string]bool{}
			for _, c := range sets.Checks(nil, route, who) {
				if seen[c.Key] {
					t.Errorf("%+v on %s: counter key %q twice", who, resource, c.Key)
				}
				seen[c.Key] = true
			}
		}
	}
}
