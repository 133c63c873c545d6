// Package gate turns one request into one rate-limit decision: the core shared by the
// Lambda authorizer (internal/authorizer), the middleware and `edgelimit dev`. It knows
// nothing of API Gateway events or HTTP; callers hand it a Request (method, route, API
// key, source IP, cost) and render the Result their own way.
//
// # The path of a request
//
//	API key -> apikey.Parse -> SHA-256 -> key record -> tenant -> route -> checks
//	        -> denial cache -> one store call for every check -> Result
//
// A request with an API key is limited under the key's tenant; each rule counts in its
// scope (tenant.Caller.Identity): the tenant's one counter, the key's, or the source
// address's (IPv6 addresses per /64, the smallest block a client is usually given). A
// request without a key is Unauthorized, unless Config.AnonymousTenant names a tenant
// and that tenant marks the request's route anonymous: it is then limited under that
// tenant, by the route's rules and the tenant-wide rules, with its address standing in
// for the key.
//
// Unauthorized (the gateway's 401) is for the caller's identity, never for a limit: a
// malformed key, an unknown or revoked key, a key whose tenant is gone or suspended, a
// missing key where the route needs one, an anonymous request without a usable source
// IP. Denied (the gateway's 429) is for limits only.
//
// # Configuration caching
//
// Key records (found or not found) and tenants are cached in process for Config.ConfigTTL
// (default 10s), measured on the injected clock. A revoked key, a suspended tenant or a
// changed rule therefore takes effect within ConfigTTL, and a key created after someone
// tried it within ConfigTTL works once that entry expires. While the tenant store fails,
// an expired entry is still used for up to Config.MaxStale (default 5 minutes): known
// keys keep their tenant's limits and fail mode through an outage of the tenant store,
// at the price of revocations waiting for the store to come back. A tenant's rules are
// compiled once per stored version, generation and creation id, so a reload that finds
// the tenant unchanged keeps the same *limiter.Set values. A cached tenant is also reloaded at the end of its current
// calendar windows (a local midnight, a Monday, the 1st), and a request of a key with
// rules of its own reloads it at the end of those rules' windows, so that a change of
// time zone made within ConfigTTL before that boundary cannot let the old zone open a
// new window.
//
// Each cache is a least-recently-used cache (hashicorp/golang-lru/v2) of at most
// Config.MaxEntries entries, whose entries carry the instant they were loaded, checked
// against the injected clock. Keys found and keys not found are cached apart, so that
// a flood of random keys evicts only other unknown keys, never a real key's record.
// Concurrent misses of one key (or tenant) share one store call
// (golang.org/x/sync/singleflight).
//
// A key that is not cached is loaded with LookupKey, then Get when its tenant is not
// fresh in the cache; found or not found, each fact is cached and served stale the same
// way.
//
// Plans and overrides: a tenant that names a plan (tenant.Plan) is limited by
// tenant.Tenant.Effective, its plan's rules and routes merged with its own and its
// active overrides. Plans are cached apart from tenants, by id, with the same TTL,
// staleness and singleflight (Config.Tenants must then be a Plans too, as every
// store.Tenants is): a plan change reaches every tenant on it within ConfigTTL, for one
// GetPlan per ConfigTTL per gate however many tenants name it. A tenant's compiled
// rules record the plan version they were compiled with, and are compiled again when
// the plan cache holds another version; counter keys and rules' StateIDs do not depend
// on the plan or its version, so a rule the change left as it was keeps its counters'
// state. A tenant with an override is reloaded at the override's until as it is at a
// window's end, so no override applies to a decision at or after its until.
//
// # The store's epoch
//
// When the tenant store has an epoch marker (store.Epoch: the DynamoDB, Upstash and
// Redis stores), the gate reads it at its first decision and again once per ConfigTTL
// (once a second without a cache), in the background of the decision that finds the
// check due (Gate.CheckEpoch). A marker missing or changed means that the store lost
// its data: the gate writes one line to Config.EpochLog (EpochChangedMessage; also an
// EMF document counting EpochChangedMetric) and drops every cached key record, tenant
// and denial, so that the lost tenants' keys stop being admitted at once.
//
// # One store call for every check
//
// tenant.Sets.Checks lists the request's counters: the route's rules, then the
// tenant-wide rules, each split by scope (at most store.MaxCounters). They are
// decided in one atomic store.Counters.Decide: the request is allowed only if every
// rule of every counter allows it, and a denial consumes nothing anywhere.
// limiter.Join picks the counter the Result reports: the denial with the longest
// RetryAfter, or when allowed the counter with the least remaining (with the longest
// leaky-bucket delay of all); Result.Checks lists every counter, for the policies in
// the headers.
//
// # The denial cache
//
// When a counter denies, the gate remembers (counter key, *limiter.Set) -> (the cost
// that was denied, the instant T = now + RetryAfter, the decision). Until T, a request
// for that counter key and set of the cost that was denied is answered Denied from
// memory with zero store calls: Remaining and Reset as the store last reported them,
// RetryAfter recomputed as T - now. Other instances can only consume more, so such a
// request could not be allowed before T; a request of smaller cost may be, and goes to
// the store. So does one of larger cost, which may need longer than T (a bucket's
// refill, or another rule of the set that admitted the denied cost), except on a set of
// one fixed window, whose next window, at T, admits any cost. (For the usual cost of 1
// this is "every request of that key until T".) Every check of a request is
// looked up before any store call. A tenant-scope counter's key is the same for every
// API key of the tenant, so its denial answers all of them from memory; counter keys
// hold the tenant id, so it never answers another tenant. Entries are per process (per
// Lambda instance), in a least-recently-used cache of Config.MaxEntries, and keyed by
// the counter key and the tenant's stored version (with its plan's version and which
// overrides are active), which fix the rules: rules compiled again at the same version
// (the config cache off, a reload) meet their denials, while a rule change (a new
// version of the tenant or its plan, an override's end), a reset (a new generation, hence new counter keys) or
// a tenant created again (a new creation id, new counter keys) never meets an old one.
//
// # Failures and the latency budget
//
// One deadline, Config.LatencyBudget (default 100ms) from the start of Check, bounds
// every store call of the request: configuration loads on a cache miss and the
// decisions. A store error or a call cut by the deadline applies the tenant's fail mode
// (tenant.FailMode; Config.FailMode before the tenant is known, such as when the key
// lookup itself fails):
//
//   - open: Allowed, with Result.FailOpen set.
//   - closed: Denied with Result.FailedClosed set and RetryAfter =
//     Config.FailClosedRetry (default 1s), so that a client backs off briefly and
//     retries once the store may be back. Fail-closed denials are not put in the denial
//     cache.
//
// The decision's store call runs apart from the request, under a second deadline
// (the budget plus LateReplyBound): a reply after the budget that allowed is refunded
// at once through the store's store.Settler, so a request the fail mode answered ends
// up counting nothing (on a store without Settler, or after the second deadline, a late
// reply stands as counted). A store that cannot be late (InProcess: the memory store)
// is called on the request's goroutine, under the budget, with none of that.
//
// Either way nothing stays counted, and the Result does not pretend otherwise: no Set and
// no Rule, Decision.Rule -1, Limit and Remaining 0. Callers mark such answers (the
// authorizer's failOpen and failClosed context keys, the X-RateLimit-Fail field), so
// that a client can tell a failing store from a limit.
//
// Backend failures are never returned as errors and never panic: Check returns an error
// only for input no decision could accept (a cost the caller set below 1 or above a
// rule's capacity). A route's own cost above a rule's capacity (a plan lowered under it)
// meets the tenant's fail mode, as a merge that no longer compiles does.
// Stores must honour the context's deadline; every store of pkg/store does.
//
// # Reservations
//
// With a Config.ReservationSecret, an allowed decision carries a Reservation: the
// estimate it counted (the request's cost, or its route's), under a token sealed with
// HMAC-SHA256. Settle it with Settle and the real cost once the response is done: the
// difference is charged (a window may go into debt) or refunded, once per reservation.
// Concurrency rules hold one slot per request until its settle or its lease's end.
//
// # Shadow mode
//
// A tenant in shadow mode is decided and reported exactly as any other (the Result's
// Decision says what enforcement would have done, and a would-be denial consumes
// nothing), but its Status is always Allowed and Result.Shadow is set.
//
// # Time
//
// Config.Now is the clock (microseconds since the Unix epoch); decisions, cache expiry
// and the denial cache all read it and nothing else. Latencies reported in the Result
// are measured on the real monotonic clock, for observability only.
package gate
