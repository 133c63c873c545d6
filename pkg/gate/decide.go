package gate

import (
	"context"
	"errors"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// decide makes who's checks for a request of cost and fills res. The error is a cost
// error only.
func (g *Gate) decide(ctx context.Context, cost int64, who caller, res *Result) error {
	res.TenantID, res.Identity = who.tenant.t.ID, who.identity
	if who.route != nil {
		res.Route = who.route.Route.Name()
	}
	var buf [2]tenant.Check
	checks := append(buf[:0], who.tenant.sets.Checks(who.route, who.identity)...)
	for _, c := range checks {
		if err := c.Set.CheckCost(cost); err != nil {
			res.Status, res.Reason = 0, err.Error()
			return err
		}
	}
	for _, c := range checks {
		if d, ok := g.denials.get(c.Key, c.Set, res.Now, cost); ok {
			g.report(res, c.Set, d, "over limit (denial cache)")
			res.Cached = true
			return nil
		}
	}
	return g.decideChecks(ctx, cost, who, checks, res)
}

// decideChecks calls the store for each check in order, stopping at the first denial.
func (g *Gate) decideChecks(ctx context.Context, cost int64, who caller, checks []tenant.Check, res *Result) error {
	var best limiter.Decision
	var bestSet *limiter.Set
	for i, c := range checks {
		start := time.Now()
		d, err := g.counters.Decide(ctx, c.Key, c.Set, res.Now, cost)
		res.StoreCalls++
		res.StoreLatency += time.Since(start)
		if err != nil {
			var ce *limiter.CostError
			if errors.As(err, &ce) {
				return err
			}
			g.failWith(res, who.tenant.t.FailMode, "counter store: "+err.Error())
			return nil
		}
		if !d.Allowed {
			g.denials.put(c.Key, c.Set, res.Now, cost, d)
			g.report(res, c.Set, d, "over limit")
			return nil
		}
		if i == 0 || d.Remaining < best.Remaining {
			delay := max(d.Delay, best.Delay)
			best, bestSet = d, c.Set
			best.Delay = delay
		} else {
			best.Delay = max(best.Delay, d.Delay)
		}
	}
	g.report(res, bestSet, best, "allowed")
	return nil
}

// report fills res with decision d of set.
func (g *Gate) report(res *Result, set *limiter.Set, d limiter.Decision, reason string) {
	res.Set, res.Decision, res.Reason = set, d, reason
	if d.Rule >= 0 && d.Rule < set.Len() {
		res.Rule = set.Rule(d.Rule).Name
	}
	res.Status = Denied
	if d.Allowed {
		res.Status = Allowed
	}
}
