package tenant

import (
	"cmp"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// The route methods: the HTTP methods API Gateway routes, and MethodAny for all of them.
const (
	MethodAny = "ANY"
	// DefaultRoute is the HTTP API (v2) catch-all route key, written as a route's
	// resource with method ANY.
	DefaultRoute = "$default"
)

var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", MethodAny}

// Route is a set of rules for one API Gateway route, applied on top of the tenant's
// rules under a counter key of its own.
//
// Method is an HTTP method in upper case, or ANY. Resource is the route's path as API
// Gateway names it: the REST API (v1) resource such as "/orders/{id}", the path of an
// HTTP API (v2) route key ("GET /orders/{id}" is method GET, resource "/orders/{id}"),
// or "$default" with method ANY. Matching is exact: "/orders/{id}" does not match the
// request path "/orders/42", only the route that API Gateway reports.
//
// Anonymous routes accept requests without an API key. Their rules count per client
// address by default (scope ip); a key-scope rule is refused there, since a request
// without a key has no key to count it under.
//
// Cost is the estimate each request of the route reserves (0 means DefaultCost): what
// every rule counts for it at the decision, before the real cost is settled (see
// gate.Gate.Settle). It must fit every rule the route's requests meet, as a request's
// cost must (limiter.Set.CheckCost).
type Route struct {
	Method    string         `json:"method"`
	Resource  string         `json:"resource"`
	Rules     []limiter.Rule `json:"rules"`
	Anonymous bool           `json:"anonymous,omitempty"`
	Cost      int64          `json:"cost,omitempty"`
}

// Bounds on a route's cost.
const (
	DefaultCost = 1
	MaxCost     = 1_000_000_000_000 // 10^12
)

// RequestCost returns the cost each request of the route reserves: Cost, or
// DefaultCost when it is 0.
func (r Route) RequestCost() int64 {
	return cmp.Or(r.Cost, DefaultCost)
}

// DefaultScope is the scope of the route's rules that name none: ScopeIP on an
// anonymous route, ScopeTenant elsewhere.
func (r Route) DefaultScope() limiter.Scope {
	if r.Anonymous {
		return limiter.ScopeIP
	}
	return limiter.ScopeTenant
}

// Name returns the route's name as an HTTP API route key, "METHOD RESOURCE" (or
// "$default"): the route's part of its counter keys, and its name in Sets.
func (r Route) Name() string {
	if r.Resource == DefaultRoute {
		return DefaultRoute
	}
	return r.Method + " " + r.Resource
}

// ParseRouteKey splits an HTTP API (v2) routeKey such as "GET /orders/{id}" into its
// method and resource. "$default" gives (ANY, "$default"). A string without a space,
// such as a REST API (v1) resource, gives an empty method and the string unchanged.
func ParseRouteKey(key string) (method, resource string) {
	if key == DefaultRoute {
		return MethodAny, DefaultRoute
	}
	if m, res, ok := strings.Cut(key, " "); ok {
		return m, res
	}
	return "", key
}

// validResource reports whether s can be a route's resource: "$default", or a path
// starting with '/' of printable ASCII without spaces, '?' or '#'.
func validResource(s string) bool {
	if s == DefaultRoute {
		return true
	}
	if len(s) == 0 || len(s) > MaxResourceLen || s[0] != '/' {
		return false
	}
	return !strings.ContainsFunc(s, func(c rune) bool { return c <= ' ' || c >= 0x7f || c == '?' || c == '#' })
}
