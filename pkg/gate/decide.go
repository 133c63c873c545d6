package gate

import (
	"context"
	"errors"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// decide makes who's checks for a request of cost asked (as the request set it; 0: its
// route's) and fills res. The error is a cost error only, for a cost the request set:
// a route's cost that its rules no longer hold (a plan lowered under it since the
// route was written) is a merge that no longer compiles, and meets the tenant's fail
// mode.
func (g *Gate) decide(ctx context.Context, asked int64, who caller, res *Result) error {
	res.TenantID, res.Identity = who.tenant.t.ID, who.identity
	if who.route != nil {
		res.Route = who.route.Route.Name()
	}
	var buf [store.MaxCounters]tenant.Check
	checks := who.tenant.sets.Checks(buf[:0], who.route, who.who)
	cost := who.cost(asked)
	if err := checkCost(checks, cost); err != nil {
		if asked > 0 {
			res.Status, res.Reason = 0, err.Error()
			return err
		}
		g.failWith(res, who.tenant.t.FailMode, "tenant store: route "+res.Route+": "+err.Error())
		return nil
	}
	res.Checks = checks
	for i, c := range checks {
		if d, ok := g.denials.get(c.Key, who.tenant.rules, res.Now, cost); ok {
			g.report(res, i, d, "over limit (denial cache)")
			res.Cached = true
			return nil
		}
	}
	return g.decideChecks(ctx, cost, who, res)
}

// decideChecks decides every check of res in one store call (storeDecide): the fail
// mode answers when ctx's budget runs out first.
func (g *Gate) decideChecks(ctx context.Context, cost int64, who caller, res *Result) error {
	start := time.Now()
	all, ok, err := g.storeDecide(ctx, res, cost)
	res.StoreCalls++
	res.StoreLatency += time.Since(start)
	if !ok {
		g.failWith(res, who.tenant.t.FailMode, "counter store: "+ctx.Err().Error())
		return nil
	}
	outs := all[:len(res.Checks)]
	if err != nil {
		var ce *limiter.CostError
		if errors.As(err, &ce) {
			return err
		}
		g.failWith(res, who.tenant.t.FailMode, "counter store: "+err.Error())
		return nil
	}
	for i, c := range res.Checks {
		if !byConcurrency(c.Set, outs[i]) { // a settle may free a slot before the retry instant
			g.denials.put(c.Key, who.tenant.rules, c.Set, res.Now, cost, outs[i]) // denials only
		}
	}
	copy(res.decisions[:], outs)
	d, at := limiter.Join(outs)
	reason := "allowed"
	if !d.Allowed {
		reason = "over limit"
	}
	g.report(res, at, d, reason)
	return nil
}

// checkCost returns the first check's *limiter.CostError for cost, or nil when every
// check's set can admit it.
func checkCost(checks []tenant.Check, cost int64) error {
	for _, c := range checks {
		if err := c.Set.CheckCost(cost); err != nil {
			return err
		}
	}
	return nil
}

// report fills res with decision d, reported by check at.
func (g *Gate) report(res *Result, at int, d limiter.Decision, reason string) {
	c := res.Checks[at]
	res.Set, res.Scope, res.Decision, res.Reason = c.Set, c.Scope, d, reason
	if d.Rule >= 0 && d.Rule < c.Set.Len() {
		res.Rule = c.Set.Rule(d.Rule).Name
	}
	res.Status = Denied
	if d.Allowed {
		res.Status = Allowed
	}
}

// byConcurrency reports whether d was decided by a concurrency rule of set.
func byConcurrency(set *limiter.Set, d limiter.Decision) bool {
	return d.Rule >= 0 && d.Rule < set.Len() && set.Rule(d.Rule).Algorithm == limiter.Concurrency
}
