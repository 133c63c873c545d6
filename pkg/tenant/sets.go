package tenant

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Sets is a tenant's rules compiled for deciding: the tenant-wide rules and each
// route's, split by scope into one limiter.Set per counter, following the tenant's Zone.
// Build it once per stored version of the tenant with Tenant.Sets and cache it with the
// tenant. Treat it as read-only: it is then safe for concurrent use.
type Sets struct {
	// TenantID, CreationID and Generation are the tenant's, as they go into counter
	// keys.
	TenantID   string
	CreationID string
	Generation int64
	// Tenant holds the tenant-wide rules, applied to every request: one ScopedSet per
	// scope they use.
	Tenant []ScopedSet
	// Routes holds one entry per Tenant.Routes, in the same order.
	Routes []RouteSet

	byResource map[string]map[string]int // resource -> method (or ANY) -> index in Routes
}

// ScopedSet is the rules of one list (the tenant's or a route's) that share a scope,
// compiled as one limiter.Set: one counter per tenant, per key or per address.
type ScopedSet struct {
	Scope limiter.Scope
	Set   *limiter.Set
}

// RouteSet is one route and its compiled rules, one ScopedSet per scope they use.
type RouteSet struct {
	Route Route
	Sets  []ScopedSet
}

// Check is one counter a request touches: the rules of Set, counted under Key.
type Check struct {
	Route string        // the Route's Name, or "" for the tenant-wide rules
	Scope limiter.Scope // whose requests the counter counts
	Key   string        // the counter key (CounterKey)
	Set   *limiter.Set
}

// Caller is who a request comes from, as scopes count it.
type Caller struct {
	// KeyID is the id of the request's API key (apikey.Key.ID); "" without a key.
	KeyID string
	// Addr is the client's address as ClientAddress gives it; "" when the request has
	// no valid source IP.
	Addr string
}

// Identity returns the identity part of the counter key under which scope counts c's
// requests: one for the whole tenant, the key's, or the address's. A key-scope rule
// counts a request without a key under its address (IdentityAddressKey), and the
// requests without a valid address together, as an ip-scope rule does, under
// "unknown". Each scope's identity has a form of its own, so the counters of one
// request's rule list never share a counter key.
func (c Caller) Identity(scope limiter.Scope) string {
	addr := cmp.Or(c.Addr, "unknown")
	switch {
	case scope == limiter.ScopeTenant || scope == "":
		return IdentityTenant
	case scope != limiter.ScopeKey:
		return IdentityIP(addr)
	case c.KeyID != "":
		return IdentityKey(c.KeyID)
	}
	return IdentityAddressKey(addr)
}

// Sets compiles the tenant's rules and its routes' rules. The tenant should be valid;
// the error is the first *limiter.FieldError otherwise.
func (t Tenant) Sets() (*Sets, error) {
	zone, err := t.Zone()
	if err != nil {
		return nil, err
	}
	tenantSets, err := ScopedSets(t.Rules, limiter.ScopeTenant, zone)
	if err != nil {
		return nil, err
	}
	s := &Sets{TenantID: t.ID, CreationID: t.CreationID, Generation: t.Generation, Tenant: tenantSets,
		Routes: make([]RouteSet, len(t.Routes)), byResource: map[string]map[string]int{}}
	for i, r := range t.Routes {
		sets, err := ScopedSets(r.Rules, r.DefaultScope(), zone)
		if err != nil {
			return nil, prefixed("routes["+strconv.Itoa(i)+"]", err)
		}
		s.Routes[i] = RouteSet{Route: r, Sets: sets}
		if s.byResource[r.Resource] == nil {
			s.byResource[r.Resource] = map[string]int{}
		}
		s.byResource[r.Resource][r.Method] = i
	}
	return s, nil
}

// ScopedSets validates rules as one list (names unique across scopes) and compiles
// one Set per scope, in the order of limiter.Scopes; a rule without a scope takes def.
func ScopedSets(rules []limiter.Rule, def limiter.Scope, zone *limiter.Zone) ([]ScopedSet, error) {
	if _, err := limiter.NewSet(rules, zone); err != nil {
		return nil, err
	}
	var out []ScopedSet
	for _, scope := range limiter.Scopes {
		var these []limiter.Rule
		for _, r := range rules {
			if r.Scope == scope || r.Scope == "" && def == scope {
				these = append(these, r)
			}
		}
		if len(these) == 0 {
			continue
		}
		set, err := limiter.NewSet(these, zone)
		if err != nil {
			return nil, err
		}
		out = append(out, ScopedSet{Scope: scope, Set: set})
	}
	return out, nil
}

// Match finds the route of a request. method is the request's HTTP method (v1
// httpMethod, v2 requestContext.http.method); target is the v1 resource
// ("/orders/{id}") or the v2 routeKey ("GET /orders/{id}", "$default"), whose method
// is used only when method is empty. A route with the request's method wins over one
// with ANY; resources match exactly. ok is false when no route matches: only the
// tenant-wide rules apply.
func (s *Sets) Match(method, target string) (route *RouteSet, ok bool) {
	keyMethod, resource := ParseRouteKey(target)
	method = cmp.Or(method, keyMethod)
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

// Checks appends to dst the counters a request by who touches: the route's (when route
// is not nil), then the tenant-wide ones, each scope under its own counter key. They
// are decided as one (store.Counters.Decide): the request is allowed only if every
// rule of every check allows it, and a denial consumes nothing anywhere.
func (s *Sets) Checks(dst []Check, route *RouteSet, who Caller) []Check {
	return s.appendChecks(s.RouteChecks(dst, route, who), "", s.Tenant, who)
}

// RouteChecks appends to dst the counters of route's own rules for who (none when
// route is nil), as Checks lists them.
func (s *Sets) RouteChecks(dst []Check, route *RouteSet, who Caller) []Check {
	if route == nil {
		return dst
	}
	return s.appendChecks(dst, route.Route.Name(), route.Sets, who)
}

func (s *Sets) appendChecks(dst []Check, route string, sets []ScopedSet, who Caller) []Check {
	for _, ss := range sets {
		key := CreatedCounterKey(s.TenantID, s.CreationID, s.Generation, route, who.Identity(ss.Scope))
		dst = append(dst, Check{Route: route, Scope: ss.Scope, Key: key, Set: ss.Set})
	}
	return dst
}
