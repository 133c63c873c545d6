// Package headers renders a rate-limit decision for HTTP: the response header fields,
// the body of a 429, and the whole answer to a gate.Result. It is the one place that
// knows these formats and the one that builds a 429; the middleware (net/http and every
// Lambda event it wraps) and `edgelimit dev` both call it. API Gateway's own answers to
// the authorizer are template.yaml's.
//
// For returns the Answer to a gate.Result (see "Answers"), and Answer.Write sends it
// on an http.ResponseWriter; Lambda handlers put its status, fields and body in their
// event response. Below it, Write sets the fields of a decision on any response whose
// headers you control, allowed or denied, and Denied prepares a 429 (WriteDenied sends
// it). These take the limiter.Set that decided, the limiter.Decision, and the instant
// of the decision (microseconds since the Unix epoch), and read no clock.
//
// # Answers
//
//   - Denied: 429 with the rate-limit fields and the JSON body (Deny, built by Denied).
//     Deny builds every 429, also the middleware's for a leaky-bucket delay it will not
//     wait. A 429 of the fail mode (the store failed, the tenant fails closed) carries
//     X-RateLimit-Fail: closed and "fail_closed": true instead of a limit's fields.
//   - Unauthorized: 401 {"message":"Unauthorized"}, as API Gateway answers it, with a
//     WWW-Authenticate challenge of the scheme APIKey that names the key's header and
//     gives the gate's reason: APIKey realm="edgelimit", header="x-api-key",
//     error_description="missing API key (no anonymous tenant: no route is anonymous)".
//   - Allowed: no response of its own (Status 0): Header holds the rate-limit fields to
//     add to the handler's response, or X-RateLimit-Fail: open alone when the fail mode
//     let the request through uncounted.
//
// Internal is the 500 of a gate error (a cost no rule admits: a misconfiguration).
//
// # The fields
//
// The 501st request of an instant to a rule set of a token bucket ("burst": 100 a
// second, burst 500) and a daily quota ("daily": 10000 a day) finds the bucket empty.
// It may retry in 10ms, and the bucket is full again in 5s (see ExampleWriteDenied):
//
//	Retry-After: 1
//	X-RateLimit-Limit: 500
//	X-RateLimit-Remaining: 0
//	X-RateLimit-Reset: 1796040005
//	RateLimit-Policy: "burst";q=100;w=1;edgelimit-burst=500, "daily";q=10000;w=86400
//	RateLimit: "burst";r=0;t=1
//
// Each field, from the Decision:
//
//   - Retry-After, on denials only: Decision.RetryAfter in whole seconds, rounded up and
//     at least 1, so that a wait of 1 microsecond reads 1 and a client never retries
//     before it could be allowed.
//   - X-RateLimit-Limit: Decision.Limit, the capacity of the rule in Decision.Rule (the
//     burst of a bucket).
//   - X-RateLimit-Remaining: Decision.Remaining, the least that any rule still admits.
//   - X-RateLimit-Reset: Decision.Reset in seconds since the Unix epoch, rounded up: the
//     latest time at which a denying rule is back to full, or when allowed the earliest
//     at which any rule is.
//   - RateLimit-Policy: one item per rule of the set, in order. q is the rule's limit,
//     w its period in seconds (none for a concurrency rule, whose q is the requests
//     it lets be in flight: the draft's w is optional); a bucket whose burst differs from its limit adds
//     edgelimit-burst, its capacity (the draft asks for a vendor prefix on such
//     parameters); a rule of scope key or ip adds edgelimit-scope=key or =ip. A request
//     decided over several counters (route and tenant rules, each scope apart) lists
//     the rules of every counter, route first; X-RateLimit-* and RateLimit then
//     describe the most restrictive counter (limiter.Join).
//   - RateLimit: one item, for the rule in Decision.Rule (when denied, the denying rule
//     with the longest wait; when allowed, the rule with the least remaining). r is
//     Decision.Remaining. t is, on a denial, the Retry-After value; when allowed, the
//     seconds until that rule is back to full, rounded up. See "The effective window".
//
// Field names are stored in their canonical form (X-Ratelimit-Limit, Ratelimit-Policy):
// header names are case-insensitive, http.Header.Get finds them under any spelling, and
// HTTP/2 sends them in lower case anyway.
//
// # The IETF draft
//
// RateLimit-Policy and RateLimit follow draft-ietf-httpapi-ratelimit-headers-11 (23 May
// 2026), sections 3 and 4, whose syntax has not changed since -08. Both fields are
// Structured Fields Lists (RFC 9651) of Items whose value is a String, the policy name,
// with Integer parameters: q (quota, required) and w (window in seconds, a non-zero
// integer: sub-second precision is not supported) on a policy; r (available quota,
// required) and t (effective window in seconds) on a service limit. Members of a List
// are separated by ", " as RFC 9651 serializes them, and each field is sent as one line.
// Names are quoted with '"' and '\' escaped; rule names hold only letters, digits, '_',
// '-' and '.', so they need no escaping in practice. Not sent: qu (the default unit,
// requests, is what a cost counts) and pk (a partition key would expose the caller's
// key or tenant; the draft asks servers not to put sensitive information there).
//
// Periods shorter than a second, or not whole seconds, are rounded up in w: a rule of 10
// per 100ms is advertised as q=10;w=1. That understates the rate a client may send and
// never overstates it.
//
// Calendar periods (day, week, month) advertise the length of the window that holds
// now, in the set's time zone, rather than a nominal 86400 or 604800: 82800 on the day
// clocks go forward and 90000 on the day they fall back, 2419200 in a February, and
// longer while a change of zone extends the current window. We chose the true length
// because it is what the quota in q covers, because a month has no nominal length at
// all, and because it changes only at window boundaries, so the field stays the same
// over the responses of one window as the draft asks of RateLimit-Policy.
//
// # The effective window
//
// The draft defines t as the seconds within which the client can use no more than r.
// On a denial that is the wait before a retry can be allowed, so t equals Retry-After;
// the draft also asks that Retry-After not point earlier than the end of the effective
// window, and that clients give Retry-After precedence. (The wait until the rule is
// full again, which is longer for a bucket or a sliding window, is X-RateLimit-Reset.)
// When allowed, t is the time until the named rule alone is back to full
// (Decision.RuleReset): the end of its window for a fixed window, so that a daily quota
// reads "daily";r=100;t=36000 as in the draft's example of multiple windows.
//
// For a request of cost 1, r is the named rule's own remaining. A denial of a larger
// cost may name one rule (the longest wait) while another holds the least remaining;
// r is then that least value, what the set as a whole still admits.
//
// # Leaky buckets
//
// An allowed decision of a set with a leaky bucket may carry Decision.Delay, the time
// until the bucket's outflow reaches the request. No field carries it: the response
// comes after the middleware has waited out the delay (up to its configured maximum),
// and no standard field means "queued". The authorizer passes it on in its context as
// delayMs. A caller that will not wait that long and refuses the request may call
// WriteDenied with the allowed decision, which answers 429 without Retry-After.
//
// # Tokens
//
// A rule that counts tokens (limiter.UnitTokens, "unit": "tokens") is also described
// as OpenAI's API describes its token limit, which LLM clients read: For and Deny add
// x-ratelimit-limit-tokens (its capacity), x-ratelimit-remaining-tokens and
// x-ratelimit-reset-tokens (the time until it is full again, a Go duration rounded up
// to the millisecond: "6m0s", "1s", "20ms"), for the first check whose own decision
// reports such a rule (route first). A response reporting no token rule has none.
//
// # Reservations
//
// SettleCost (X-RateLimit-Settle-Cost) is the response header from which a trusted
// layer settles a request's reservation; ParseSettleCost reads it.
//
// # The fail mode
//
// When the limiter's store fails, the tenant's fail mode answers and nothing is
// counted; the answer says so rather than showing a limit. An allowed response then
// carries X-RateLimit-Fail: open and no other field of this package (the caller does
// not call Write: there is no decision to render). A denial is written by Denied with a
// nil set: Retry-After, X-RateLimit-Fail: closed, and the body with "fail_closed":
// true, limit and remaining 0 and rule "". X-RateLimit-Fail is edgelimit's own field,
// named after the X-RateLimit-* family it goes with.
//
// # The 429 body
//
// WriteDenied writes Content-Type application/json, Cache-Control no-store and the
// Denial body:
//
//	{"message":"Too Many Requests","retry_after":1,"limit":500,"remaining":0,"reset":1796040005,"rule":"burst","fail_closed":false}
//
// See Denial for the meaning of each member; each one repeats a header field. The
// draft's quota-exceeded problem type (application/problem+json, its section 5.1) is a
// MAY; we keep instead the {"message": ...} shape of API Gateway's own error bodies, so
// that a client reads one shape whether the 429 came from this package, from a Gateway
// Response, or from API Gateway's own throttling.
//
// Write builds every value in one buffer and costs two allocations however many rules
// the set holds (BenchmarkWrite).
package headers
