// Package hotcounter is a store.Counters in front of another one (Next) that serves hot
// counters from instance-local leases, so that one counter can take far more decisions
// per second than one DynamoDB item can be written (about 1,000 a second per partition
// key), with bounded error. Cold counters go straight through, unchanged.
//
// # Cold and hot
//
// A counter is cold until this instance sees it above Config.Threshold decisions per
// second (50 by default, measured over 250 ms windows on the instants passed to
// Decide, never the wall clock), or until Next answers a decision that includes it with
// store.ErrThrottled (DynamoDB does not say which item it throttled, so every
// eligible counter of that decision turns hot, for 30 s), or with a Config.Retryable
// error (the dynamodb store's ErrContention: hot for 1 s, as a busy counter). A hot
// counter stays hot for 1 s past the instant its next reservation may be made (30 s
// while throttled reservations raise its lease time), however few decisions reach it:
// the gate's denial cache answers a saturated counter's denied requests until their
// retry instant, so its rate as seen here falls below the threshold exactly when going
// cold would send each request to the throttled item within its budget, and traffic
// that comes back after an idle gap would come back as a burst of cold writes. A decision whose counters are all cold is one Next.Decide of all
// of them: exact, atomic, one round trip, as without this package.
//
// Only rule sets whose rules are all fixed windows (epoch or calendar), sliding windows
// or token buckets are ever hot: a unit reserved in Next and spent later stays within
// such a rule (see Bounds). A sliding log keeps each unit at the instant it was
// reserved, so a unit spent later would leave the log early and over-admit; a leaky
// bucket's delay needs each request's own place in the queue; a first-request window's
// end is known only to the stored state. Sets with such a rule stay cold.
//
// # Leases
//
// A hot counter is served from a lease: one Next.Decide of cost B on that counter alone,
// through Next's own exact path, reserves B units in the shared state; this instance
// then admits requests from them, cost c at a time, without a call. The units are
// counted in the shared state before they are spent, so all instances together never
// admit more than the shared state allows. A lease ends with the window it was reserved
// in, for every fixed or sliding window of the set (a unit of one window spent in the
// next would over-admit), and for a set with a token bucket L after it was taken
// (Config.LeaseTime, 200 ms by default; see Bounds). Units not spent by then are lost:
// they are what the false denials are made of. When Next is a Refunder (the dynamodb
// store), a window set's lease whose counter saw no decision for L is given back to
// Next (its units subtracted from the window they were counted in) by the next
// decision this instance makes on any counter, at most 4 leases per decision and one
// round of them per L; so an instance that went hot and then idle does not hold its
// units until a daily window's end. An instance frozen or reaped before that gives
// nothing back. A lease belongs to its counter's rules'
// content, not to the *limiter.Set object: a set compiled again from the same rules (a
// tenant reloaded, another API key of the tenant) keeps the lease, and a reservation in
// flight meanwhile is still the counter's; other rules drop it.
//
// One reservation of a counter is in flight per instance at a time; the requests that
// find the lease short meanwhile wait for it, within their deadlines. A reservation
// runs apart from the request that started it, with its own timeout (1 s) instead of
// the request's deadline: when Next answers after the request gave up (the request
// gets its fail mode), the answer is still the lease of the requests that follow,
// not units counted in the shared state and never spent.
//
// B is what this instance spends in L/2 at its rate of the last 250 ms, at least 1 and
// at most a tenth of the set's least capacity. When Next denies a reservation the
// instance takes what Next still has instead, if that covers the request and the
// denying rule frees no more before long (a used-up window); otherwise it answers
// locally, denied, with RetryAfter until its next attempt, and tries again after
// max(Next's RetryAfter, L/4 x 2^(k-1)) for the k-th denial in a row (k falls by one per
// granted lease), at most L or a quarter of a bucket's refill time, so that a bucket
// never fills up (and wastes its refill) while every instance waits. Fifty instances on
// a saturated counter thus write a few times per lease time, not once per request.
//
// # Throttling
//
// A call refused with store.ErrThrottled did nothing, so Decide retries it after 5,
// 10, 20, 40, 40, ... ms while the context's deadline leaves twice the wait (4 times
// without a deadline), deciding at the later instant; then, when all its counters are
// hot (a throttled cold decision turns them hot), it is a local denial with a 5 ms
// RetryAfter, else it returns the error, and the gate answers the tenant's fail mode. A throttled reservation is not retried
// within the request's budget: the item's capacity refills at its own pace, and
// retries from every waiting request would only feed the throttle. The request is
// denied locally, as are the counter's requests until its next reservation, 5 ms x
// 2^(k-1) later for the k-th throttled reservation in a row (at most the longest
// backoff after a denial); once the counter's reservations have been throttled in a
// row for 5 s (none through since the first of them: an outage, not backpressure)
// the throttling error is returned instead, and the fail mode answers. A throttled
// reservation also doubles the counter's lease time (fewer, larger leases, up to 8L;
// one doubling is undone per 10 s without a throttle). A throttled cold decision turns
// its counters hot. Nothing is admitted without units reserved in Next.
// Config.Retryable names other errors that did nothing (the dynamodb store's
// ErrContention), retried the same way.
//
// # One decision over hot and cold counters
//
// A request touching hot and cold counters first withdraws c from each hot counter's
// lease (reserving when a lease is short: an extra call, amortised over B requests),
// then decides the cold counters in one Next.Decide, and gives the withdrawn units back
// when anything denied. It keeps: allowed only if every rule of every counter allows; a
// denial consumes nothing, in Next or in a lease; one round trip while the leases have
// units. It gives up: a hot counter is not decided in the same atomic step as the cold
// ones, nor as other instances' requests (its units left the shared state earlier, and
// may be lost unspent); a hot counter's Decision is Next's answer to the last
// reservation with the lease's units added to Remaining (Reset, Rule and Limit as of
// that reservation); when a hot counter denies first, the counters not yet decided
// report allowed with their least capacity as Remaining, so that limiter.Join answers
// the denial unchanged. Peek asks Next, where leased units count as used.
//
// # Bounds
//
// With N instances holding leases of at most B units and lease time L (8L while
// throttled): fixed and sliding windows never admit more than their limit (beyond
// Next's own clock-skew bound); a token bucket admits, in any interval, at most
// min(L x limit/period, N x B) more than the bucket would (as a clock skew of L would),
// and from its creation on never more than the bucket allows in total; the false
// denials are the units leased and not spent: at most N x B per window for windows, and
// N x B per lease time for buckets. docs/backends.md has the simulation that measures
// them.
package hotcounter
