package headers

import (
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// The fields Write sets, in the order their values are built. The keys are the
// canonical forms of X-RateLimit-Limit, RateLimit-Policy and so on, so that h.Get with
// either spelling finds them (header names are case-insensitive on the wire).
var fieldKeys = [...]string{
	http.CanonicalHeaderKey("Retry-After"), // denials only
	http.CanonicalHeaderKey("X-RateLimit-Limit"),
	http.CanonicalHeaderKey("X-RateLimit-Remaining"),
	http.CanonicalHeaderKey("X-RateLimit-Reset"),
	http.CanonicalHeaderKey("RateLimit-Policy"),
	http.CanonicalHeaderKey("RateLimit"),
}

// FailField marks an answer that the fail mode gave, not a limit: the limiter's store
// failed (or outlasted its latency budget), nothing was counted, and the tenant's fail
// mode answered. Its value is FailOpen on an allowed response (which then carries no
// other rate-limit field) and FailClosed on a 429.
const FailField = "X-Ratelimit-Fail" // canonical form of X-RateLimit-Fail

// The values of FailField.
const (
	FailOpen   = "open"
	FailClosed = "closed"
)

// burstParam carries a bucket's capacity in RateLimit-Policy when it differs from its
// limit; the draft asks for service-specific parameters to carry a vendor prefix.
const burstParam = "edgelimit-burst"

// scopeParam carries the scope of a rule that does not count the whole tenant, as a
// Structured Fields Token (key or ip).
const scopeParam = "edgelimit-scope"

// Write sets the rate-limit fields of d, the decision of set at instant now
// (microseconds since the Unix epoch), on h, replacing any values of those fields
// already there and leaving every other field alone:
//
//	Retry-After: 1                                (denials only)
//	X-RateLimit-Limit: 500
//	X-RateLimit-Remaining: 0
//	X-RateLimit-Reset: 1796040005
//	RateLimit-Policy: "burst";q=100;w=1;edgelimit-burst=500, "daily";q=10000;w=86400
//	RateLimit: "burst";r=0;t=1
//
// Write it on allowed responses as well as on denials. When d is allowed, Retry-After
// is neither set nor removed. The package doc says what each value means and how it is
// rounded. d must come from set (d.Rule indexes its rules; for any other index the
// RateLimit field is left out); set must not be nil.
//
// A request decided over several counters (a route's and the tenant's rules, each
// scope apart) passes them all as policies, set among them: RateLimit-Policy then lists
// the rules of each, in order, and X-RateLimit-* and RateLimit describe set's, the
// most restrictive. A rule of scope key or ip carries its scope as a parameter:
// "burst";q=10;w=1;edgelimit-scope=key.
func Write(h http.Header, set *limiter.Set, d limiter.Decision, now int64, policies ...*limiter.Set) {
	// Every value is appended to one buffer and then cut out of one string, so that
	// rendering costs two allocations whatever the number of rules. An empty value
	// means the field is not set.
	var buf [512]byte
	var ends [len(fieldKeys)]int
	b := buf[:0]
	if !d.Allowed {
		b = strconv.AppendInt(b, retryAfter(d), 10)
	}
	ends[0] = len(b)
	b = strconv.AppendInt(b, d.Limit, 10)
	ends[1] = len(b)
	b = strconv.AppendInt(b, max(d.Remaining, 0), 10)
	ends[2] = len(b)
	b = strconv.AppendInt(b, limiter.CeilSeconds(d.Reset), 10)
	ends[3] = len(b)
	if len(policies) == 0 {
		b = appendPolicies(b, set, now)
	}
	for i, p := range policies {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendPolicies(b, p, now)
	}
	ends[4] = len(b)
	b = appendServiceLimit(b, set, d, now)
	ends[5] = len(b)

	all := string(b)
	vals := make([]string, len(fieldKeys))
	start := 0
	for i, key := range fieldKeys {
		vals[i], start = all[start:ends[i]], ends[i]
		if vals[i] != "" {
			h[key] = vals[i : i+1 : i+1] // capped, so that h.Add never writes into a neighbour
		}
	}
}

// retryAfter is the Retry-After of a denial in whole seconds, rounded up and at least
// 1: a client told 0 would retry at once and be denied again. It is 0 when allowed.
func retryAfter(d limiter.Decision) int64 {
	if d.Allowed {
		return 0
	}
	return max(limiter.CeilSeconds(d.RetryAfter), 1)
}

// appendPolicies appends the RateLimit-Policy value: one Quota Policy Item per rule of
// set, in the set's order, as a Structured Fields List.
func appendPolicies(b []byte, set *limiter.Set, now int64) []byte {
	for i := range set.Len() {
		if i > 0 {
			b = append(b, ", "...)
		}
		r := set.Rule(i)
		b = appendString(b, r.Name)
		b = appendParam(b, "q", r.Limit)
		if r.Algorithm != limiter.Concurrency { // requests in flight: no window to give
			b = appendParam(b, "w", windowSeconds(set, i, now))
		}
		if burst := r.Capacity(); burst != r.Limit {
			b = appendParam(b, burstParam, burst)
		}
		if r.Scope == limiter.ScopeKey || r.Scope == limiter.ScopeIP {
			b = append(b, ";"+scopeParam+"="...)
			b = append(b, r.Scope...)
		}
	}
	return b
}

// windowSeconds is rule i's window in whole seconds, for the w parameter. A duration
// period is rounded up (and so at least 1, since the draft allows no sub-second or
// zero window): 10 per 100ms becomes q=10;w=1, which understates the rate rather than
// overstating it. A calendar period is the length of the window that holds now, in the
// set's zone: 82800 on the day clocks go forward, 2419200 in a February, longer while
// a change of zone extends the window.
func windowSeconds(set *limiter.Set, i int, now int64) int64 {
	p := set.Rule(i).Period
	if !p.IsCalendar() {
		return max(limiter.CeilSeconds(p.Micros()), 1)
	}
	start, end := set.Window(i, now)
	return max(limiter.CeilSeconds(end-start), 1)
}

// appendServiceLimit appends the RateLimit value: one Service Limit Item for the rule
// that decided, d.Rule. It appends nothing when d.Rule is not a rule of set.
func appendServiceLimit(b []byte, set *limiter.Set, d limiter.Decision, now int64) []byte {
	if d.Rule < 0 || d.Rule >= set.Len() {
		return b
	}
	b = appendString(b, set.Rule(d.Rule).Name)
	b = appendParam(b, "r", max(d.Remaining, 0))
	return appendParam(b, "t", effectiveWindow(d, now))
}

// effectiveWindow is the t parameter, in whole seconds rounded up. On a denial it is
// the Retry-After: no further request is admitted before then, and the draft asks that
// Retry-After not point earlier than the end of the effective window. When allowed it
// is the time until the deciding rule alone is back to full, d.RuleReset.
func effectiveWindow(d limiter.Decision, now int64) int64 {
	if !d.Allowed {
		return retryAfter(d)
	}
	return max(limiter.CeilSeconds(d.RuleReset-now), 0)
}

// appendParam appends ";key=n", a Structured Fields parameter with an Integer value.
func appendParam(b []byte, key string, n int64) []byte {
	b = append(b, ';')
	b = append(b, key...)
	b = append(b, '=')
	return strconv.AppendInt(b, n, 10)
}

// appendString appends s as a Structured Fields String (RFC 9651, section 4.1.6):
// quoted, with '"' and '\' escaped. A String holds printable ASCII only; rule names
// are letters, digits, '_', '-' and '.', so the replacement of any other byte by '?'
// never happens to a name that passed validation.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c > 0x7e:
			b = append(b, '?')
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
