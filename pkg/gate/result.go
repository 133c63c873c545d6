package gate

import (
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Request is what the gate needs to know of one request.
type Request struct {
	// Method is the HTTP method; it may be empty when Resource is a v2 route key.
	Method string
	// Resource is the REST API (v1) resource ("/orders/{id}") or the HTTP API (v2)
	// route key ("GET /orders/{id}", "$default"), matched against the tenant's routes.
	Resource string
	// APIKey is the raw API key from the key header, or "" when there is none. It is
	// hashed and never stored or logged.
	APIKey string
	// SourceIP is the client's address, used for anonymous routes.
	SourceIP string
	// Cost is the request's cost, set only by a trusted layer (never from what the
	// client sends); 0 means the matched route's cost (tenant.Route.Cost), 1 off any
	// route.
	Cost int64
}

// Status is a Check's verdict.
type Status uint8

// The statuses.
const (
	// Allowed: let the request through (also when failing open or in shadow mode).
	Allowed Status = iota + 1
	// Denied: over a limit (or failing closed); the gateway answers 429.
	Denied
	// Unauthorized: the caller's identity was refused; the gateway answers 401.
	Unauthorized
)

// String returns "allowed", "denied" or "unauthorized".
func (s Status) String() string {
	if s < Allowed || s > Unauthorized {
		return "unknown"
	}
	return [...]string{"allowed", "denied", "unauthorized"}[s-1]
}

// Result is a Check's answer, shaped for the authorizer's context, HTTP headers and
// logs. It never holds the API key.
type Result struct {
	Status Status
	// TenantID is the tenant the request was decided under, when known.
	TenantID string
	// Identity is who sent the request: tenant.IdentityKey(keyID), or
	// tenant.IdentityIP(ip) for a request without a key.
	Identity string
	// Route is the matched route's name, or "" for the tenant-wide rules only.
	Route string
	// Rule is the name of the rule reported in Decision (Decision.Rule of Set); "" when
	// the fail mode answered.
	Rule string
	// Decision is the deciding check's limiter.Decision (see the package doc for which
	// check that is). For an answer of the fail mode it reports no rule (Rule -1),
	// Limit and Remaining 0, and the fail-closed retry: nothing was counted.
	Decision limiter.Decision
	// Set is the rule set of the check reported in Decision; Scope is that check's
	// scope. Set is nil when none decided: no tenant was known, or the fail mode
	// answered.
	Set   *limiter.Set
	Scope limiter.Scope
	// Checks are the counters the request touched (route first, then tenant-wide; one
	// per scope), decided as one; nil when no tenant was known. Headers list the
	// policies of every check.
	Checks []tenant.Check
	// Now is the instant of the decision (microseconds since the Unix epoch).
	Now int64
	// FailOpen is set when the store failed and the tenant's fail mode let it through.
	FailOpen bool
	// FailedClosed is set when the store failed and the fail mode denied the request.
	FailedClosed bool
	// Shadow is set for a tenant in shadow mode: Status is then always Allowed.
	Shadow bool
	// Cached is set when the denial cache answered without a store call.
	Cached bool
	// StoreCalls counts the counter store's Decide calls (at most one); ConfigCalls the tenant
	// store's calls (cache misses).
	StoreCalls, ConfigCalls int
	// Reservation is an allowed decision's reservation, to settle with Gate.Settle once
	// the request's real cost is known; the zero Reservation when there is none.
	Reservation Reservation
	// decisions holds each check's own decision (CheckDecision), as the store answered.
	decisions [store.MaxCounters]limiter.Decision
	// StoreLatency is the time spent in the counter store's calls.
	StoreLatency time.Duration
	// Reason says why, for logs: "allowed", "over limit", "unknown key", the store
	// error... It never holds the key.
	Reason string
}

// RetryAfterSeconds returns the Retry-After of a denial in whole seconds, rounded up
// and at least 1; 0 when the decision allowed or the request was Unauthorized.
func (r *Result) RetryAfterSeconds() int64 {
	if r.Decision.Allowed || r.Status == Unauthorized {
		return 0
	}
	return max(limiter.CeilSeconds(r.Decision.RetryAfter), 1)
}

// Policies returns the rule sets of every check of the request, in order, for
// headers.Write's RateLimit-Policy; nil when no tenant was known.
func (r *Result) Policies() []*limiter.Set {
	if len(r.Checks) == 0 {
		return nil
	}
	out := make([]*limiter.Set, len(r.Checks))
	for i, c := range r.Checks {
		out[i] = c.Set
	}
	return out
}

// CheckDecision returns the decision of check i of Checks alone (its Rule is the rule of
// that check's set with the least remaining, or the denying one), as the store answered
// it; the zero Decision, with ok false, when the store did not decide (the denial cache
// or the fail mode answered).
func (r *Result) CheckDecision(i int) (d limiter.Decision, ok bool) {
	if i < 0 || i >= len(r.Checks) || r.StoreCalls == 0 || r.Set == nil || r.Cached {
		return limiter.Decision{}, false
	}
	return r.decisions[i], true
}
