package gate

import (
	"context"
	"errors"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// caller is who a request is limited as: a tenant, a route of it and who sent it.
type caller struct {
	tenant   *tenantEntry
	route    *tenant.RouteSet
	who      tenant.Caller
	identity string // tenant.IdentityKey or tenant.IdentityIP of who, for the Result
	ownRules string // the key's hash when it has rules of its own, else ""
}

// Check decides req: see the package doc for the path it takes. The error is non-nil
// only for a cost req sets that no rule could ever admit (a *limiter.CostError);
// backend failures, and a route's cost that its rules no longer hold (a plan lowered
// under it), are answered with the fail mode, never returned.
func (g *Gate) Check(ctx context.Context, req Request) (Result, error) {
	now := g.now()
	g.pollEpoch(now)
	res := Result{Now: now}
	if req.Cost < 0 {
		return res, &limiter.CostError{Cost: req.Cost}
	}
	b := newBudget(ctx, g.budget)
	defer b.stop()
	ctx = b
	who, ok := g.identify(ctx, req, &res)
	if !ok {
		return res, nil
	}
	cost := who.cost(req.Cost)
	if err := g.decide(ctx, req.Cost, who, &res); err != nil {
		return res, err
	}
	if who.tenant.t.Shadow {
		res.Shadow = true
		res.Status = Allowed
	}
	g.reserve(&res, who, cost)
	return res, nil
}

// identify finds the tenant, route and identity of req. When it returns false, res is
// complete: Unauthorized, or the default fail mode when the tenant store failed.
func (g *Gate) identify(ctx context.Context, req Request, res *Result) (caller, bool) {
	if req.APIKey == "" {
		return g.anonymousCaller(ctx, req, res)
	}
	key, err := apikey.Parse(req.APIKey)
	if err != nil {
		return caller{}, g.unauthorized(res, "malformed API key")
	}
	rec, err := g.configs.key(ctx, key.Hash(), res.Now, &res.ConfigCalls)
	if err != nil {
		return caller{}, g.configFailed(res, err, "unknown or revoked API key")
	}
	t, err := g.configs.tenantOfKey(ctx, rec.TenantID, rec, res.Now, &res.ConfigCalls) // with the key's own rules
	if err != nil {
		return caller{}, g.configFailed(res, err, "the key's tenant does not exist")
	}
	res.TenantID = t.t.ID
	if !t.t.Active() {
		return caller{}, g.unauthorized(res, "tenant suspended")
	}
	route, _ := t.sets.Match(req.Method, req.Resource)
	addr, _ := tenant.ClientAddress(req.SourceIP)
	who := caller{tenant: t, route: route, who: tenant.Caller{KeyID: rec.KeyID, Addr: addr}, identity: tenant.IdentityKey(rec.KeyID)}
	if len(rec.Rules) > 0 {
		who.ownRules = rec.Hash
	}
	return who, true
}

// anonymousCaller identifies a request without an API key: per source IP under the
// anonymous tenant, on the routes it marks anonymous.
func (g *Gate) anonymousCaller(ctx context.Context, req Request, res *Result) (caller, bool) {
	if g.anonymous == "" {
		return caller{}, g.unauthorized(res, "missing API key (no anonymous tenant: no route is anonymous)")
	}
	t, err := g.configs.tenant(ctx, g.anonymous, res.Now, &res.ConfigCalls)
	if err != nil {
		return caller{}, g.configFailed(res, err, "missing API key (the anonymous tenant does not exist)")
	}
	route, ok := t.sets.Match(req.Method, req.Resource)
	if !ok || !route.Route.Anonymous {
		return caller{}, g.unauthorized(res, "missing API key")
	}
	res.TenantID = t.t.ID
	if !t.t.Active() {
		return caller{}, g.unauthorized(res, "anonymous tenant suspended")
	}
	ip, ok := tenant.ClientAddress(req.SourceIP)
	if !ok {
		return caller{}, g.unauthorized(res, "missing API key and no valid source IP")
	}
	return caller{tenant: t, route: route, who: tenant.Caller{Addr: ip}, identity: tenant.IdentityIP(ip)}, true
}

// cost returns the cost a request of who reserves: cost when the caller set one, else
// the route's (tenant.Route.RequestCost), 1 off any route.
func (c caller) cost(cost int64) int64 {
	switch {
	case cost > 0:
		return cost
	case c.route != nil:
		return c.route.Route.RequestCost()
	}
	return tenant.DefaultCost
}

func (g *Gate) unauthorized(res *Result, reason string) bool {
	res.Status = Unauthorized
	res.Reason = reason
	return false
}

// configFailed answers a failed key or tenant load: Unauthorized when it was not
// found, else the default fail mode.
func (g *Gate) configFailed(res *Result, err error, notFound string) bool {
	if errors.Is(err, errNotFound) {
		return g.unauthorized(res, notFound)
	}
	g.failWith(res, g.failMode, "tenant store: "+err.Error())
	return false
}

// failWith fills res with the answer of fail mode mode. Nothing was counted, and the
// Result says so: no Set, no Rule, a Decision with no rule (Rule -1), Limit and
// Remaining 0; FailOpen or FailedClosed tells the answer from a limit's.
func (g *Gate) failWith(res *Result, mode tenant.FailMode, reason string) {
	d := limiter.Decision{Rule: -1, Reset: res.Now}
	res.Set, res.Rule, res.Reason = nil, "", reason
	if mode == tenant.FailOpen {
		d.Allowed = true
		res.Status, res.FailOpen, res.Decision = Allowed, true, d
		return
	}
	d.RetryAfter = g.failRetry
	d.Reset = res.Now + g.failRetry
	res.Status, res.FailedClosed, res.Decision = Denied, true, d
}
