package tenant

import (
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Sets is a tenant's rules compiled for deciding: the tenant-wide limiter.Set and one
// per route, following the tenant's Zone. Build it once per stored version of the tenant
// with Tenant.Sets and cache it with the tenant. Treat it as read-only: it is then safe
// for concurrent use.
type Sets struct {
	// TenantID and Generation are the tenant's, as they go into counter keys.
	TenantID   string
	Generation int64
	// Tenant holds the tenant-wide rules, applied to every request.
	Tenant *limiter.Set
	// Routes holds one entry per Tenant.Routes, in the same order.
	Routes []RouteSet

	byResource map[string]map[string]int // resource -> method (or ANY) -> index in Routes
}

// RouteSet is one route and its compiled rules.
type RouteSet struct {
	Route Route
	Set   *limiter.Set
}

// Check is one decision to make for a request: the rules of Set, counted under Key.
type Check struct {
	Route string // the Route's Name, or "" for the tenant-wide rules
	Key   string // the counter key (CounterKey)
	Set   *limiter.Set
}

// Sets compiles the tenant's rules and its routes' rules. The tenant should be valid;
// the error is the first *limiter.FieldError otherwise.
func (t Tenant) Sets() (*Sets, error) {
	zone, err := t.Zone()
	if err != nil {
		return nil, err
	}
	tenantSet, err := limiter.NewSet(t.Rules, zone)
	if err != nil {
		return nil, err
	}
	s := &Sets{TenantID: t.ID, Generation: t.Generation, Tenant: tenantSet,
		Routes: make([]RouteSet, len(t.Routes)), byResource: map[string]map[string]int{}}
	for i, r := range t.Routes {
		set, err := limiter.NewSet(r.Rules, zone)
		if err != nil {
			return nil, prefixed("routes["+strconv.Itoa(i)+"]", err)
		}
		s.Routes[i] = RouteSet{Route: r, Set: set}
		if s.byResource[r.Resource] == nil {
			s.byResource[r.Resource] = map[string]int{}
		}
		s.byResource[r.Resource][r.Method] = i
	}
	return s, nil
}

// Match finds the route of a request. method is the request's HTTP method (v1
// httpMethod, v2 requestContext.http.method); target is the v1 resource
// ("/orders/{id}") or the v2 routeKey ("GET /orders/{id}", "$default"), whose method
// is used only when method is empty. A route with the request's method wins over one
// with ANY; resources match exactly. ok is false when no route matches: only the
// tenant-wide rules apply.
func (s *Sets) Match(method, target string) (route *RouteSet, ok bool) {
	keyMethod, resource := ParseRouteKey(target)
	if method == "" {
		method = keyMethod
	}
	byMethod := s.byResource[resource]
	if byMethod == nil {
		return nil, false
	}
	if i, ok := byMethod[strings.ToUpper(method)]; ok {
		return &s.Routes[i], true
	}
	if i, ok := byMethod[MethodAny]; ok {
		return &s.Routes[i], true
	}
	return nil, false
}

// Checks lists the decisions a request by identity makes: the route's rules (when
// route is not nil) under the route's counter key, then the tenant-wide rules under
// the tenant's. The request is allowed only if every check allows it.
//
// The checks are separate backend calls, each atomic on its own: decide them in this
// order and stop at the first denial. A route denial then consumes nothing anywhere; a
// tenant-wide denial after the route allowed leaves that request counted on the route.
// Routes are narrower than the tenant, so this errs towards denying, never towards
// admitting more than either set allows.
func (s *Sets) Checks(route *RouteSet, identity string) []Check {
	tenantCheck := Check{Key: CounterKey(s.TenantID, s.Generation, "", identity), Set: s.Tenant}
	if route == nil {
		return []Check{tenantCheck}
	}
	name := route.Route.Name()
	return []Check{{Route: name, Key: CounterKey(s.TenantID, s.Generation, name, identity), Set: route.Set}, tenantCheck}
}
