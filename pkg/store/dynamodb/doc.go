// Package dynamodb is the storage over Amazon DynamoDB (aws-sdk-go-v2): Counters and
// Tenants, each in a table of its own, which CreateTable makes for tests and
// `edgelimit dev` (production tables come from template.yaml).
//
// Counters, the store.Counters, keeps one item per limited key holding the state of
// every rule of its set, one conditional UpdateItem per decision over one counter, and
// one TransactWriteItems per decision over several; as a store.Settler it keeps one
// marker item per settled reservation in the same table, until its expiry.
//
// # How one write decides
//
// The Counters keeps, per key, the last state it saw (its guess). For a request it runs
// pkg/limiter on the guess and sends one UpdateItem whose ConditionExpression holds
// exactly when the stored state is in the branch the guess is in and the request fits:
//
//	fixed_window    same window:  ws = :ws AND c <= :limit-cost       ADD c :cost
//	                new window:   ws absent or older                  SET ws, we, c
//	sliding_window  same window:  ws = :ws AND p = :p AND c <= :max   ADD c :cost
//	                next window:  ws = :prev AND c = :c               SET ws, p, c
//	                stale:        ws absent or older                  SET ws, p, c
//	token/leaky     not full:     t > :now AND t <= :now+tol-cost*T   SET t = t + cost*T
//	                full:         t absent or t <= :now               SET t = :now + cost*T
//	sliding_log     map of instant -> cost, n their total:
//	                n <= :limit-cost+expired, expired entries pinned   SET g.now = g.now + cost,
//	                                                                   ADD n, REMOVE expired
//	concurrency     map of slot expiry -> slots, n their total:
//	                n <= :limit-1+expired, expired entries pinned      SET g.e = if_not_exists(g.e, 0) + 1,
//	                                                                   ADD n, REMOVE expired
//	                no entry:  n absent or 0                           SET g = {e: 1}, n = 1
//
// (e is limiter.Set.SlotExpiry of max(now, the guessed l).) A concurrency rule's
// update is relative as a bucket's is: instances taking slots on one key do not
// conflict, except the first to create a map or to remove an expired entry (the
// others retry once). A slot whose write left l alone is filed under the expiry of
// max(now, the guessed l), up to the clock difference of the instances early.
//
// (t is the bucket's theoretical arrival time in units of 1/limit microsecond, an exact
// integer.) l is the clock-skew rule's latest instant: an absolute SET conditions
// l <= :at and sets l = :at, at being max(now, the guessed l). A relative update (ADD,
// t = t + x) conditions and sets l in the same way only on a first attempt whose now is
// after the guessed l; otherwise (a retry, or a request not after the guessed l) it
// leaves l alone, with its condition evaluated at max(now, the guessed l). The stored
// l only grows and a guess's is never later than it, so that condition is never looser
// than the limiter's on the stored state (a later instant only frees more), and
// instances whose instants interleave do not conflict on l. Relative updates thus do
// not conflict with each other: concurrent instances on one key all succeed while the
// request fits, in at most two attempts. Absolute SETs on a pinned old value conflict,
// and the loser retries. The write asks for ALL_OLD both on success
// and on ConditionalCheckFailedException, so the Counters always learns the true state
// without a read: on success it computes the decision from the old state with
// pkg/limiter (the result is the limiter's, by construction); on failure it computes it
// from the returned item, answers a denial at once (nothing written), and otherwise
// retries with the true state as its guess. When the guess already says "denied", the
// write is a probe whose condition always fails. At most 3 attempts, then ErrContention.
// The SDK's own retries are off for this call: a retry after a lost reply would consume
// twice. A reply lost after DynamoDB committed may consume once.
//
// In the steady state of one instance the guess is exact, so a decision is one round
// trip, allowed or denied, 1 write unit and 0 read units for items under 1 KB.
//
// # Several counters: one transaction
//
// A decision over several counters (a route's rules and the tenant's, each scope its
// own key and item) is one TransactWriteItems holding, per item, the Update that the
// single-counter path would send: the condition and update built from that key's
// guess, with ReturnValuesOnConditionCheckFailure ALL_OLD. DynamoDB applies all of
// them or none, so the request is consumed from every counter or from none. The Counters
// runs limiter.DecideAll on copies of the guesses first:
//
//   - When the guesses allow, it sends the writes. A transaction returns no item
//     values, so on success the answer is DecideAll's on the guesses, and the consumed
//     copies become the next guesses. Every condition held, so the admission is exact
//     and every rule was in its guessed branch (the same window, a bucket full or
//     not). With one instance per key the guesses are the stored states, and the
//     answer is the limiter's exactly. Writes by other instances since this one last
//     saw an item are missing from its answer: Remaining is too high by at most the
//     cost they admitted on that counter since (for a sliding window, in its current
//     window), a bucket's Reset and a leaky bucket's Delay are early by at most that
//     cost's emission intervals, and Rule, Limit and RuleReset name the rule with the
//     least Remaining as this instance sees it. Allowed is exact, and so is the Reset
//     of fixed windows, sliding windows and logs (the condition pins the window and
//     the clock).
//   - When a guess denies, the write is a probe: the same transaction with every
//     condition one that cannot hold, so DynamoDB cancels it and returns every item.
//     The denial is DecideAll's on the true states, exact, in one round trip; when
//     the true states allow after all, the Counters retries with them.
//   - When some condition fails, DynamoDB cancels the transaction
//     (TransactionCanceledException) and each ConditionalCheckFailed reason carries
//     its item as it was: those true states become the guesses. When one of those
//     counters denies on its true state, the request is denied at once, nothing
//     written (the other counters' decisions come from their guesses, off as above);
//     otherwise the Counters retries. A TransactionConflict reason (another transaction
//     holds the item) is retried too; ThrottlingError and ProvisionedThroughputExceeded
//     are ErrThrottled, and other reasons an error.
//
// Attempts are bounded as for one counter (3, then ErrContention). The SDK retries a
// transaction once when its reply was lost or an HTTP 5xx: the call's ClientRequestToken,
// which the SDK sets once for all its retries, makes DynamoDB apply it at most once. An UpdateItem on an item
// that a transaction holds fails with TransactionConflictException; the single-counter
// path retries it like a failed condition. Concurrent transactions on one item
// conflict where concurrent ADDs would not, so one tenant-scope item decided by many
// instances at once is where contention shows first.
//
// # Settling a reservation
//
// Settle (store.Settler) is one TransactWriteItems: a Put of the idempotency marker
// item pk = "settle#<id>", conditioned on attribute_not_exists(pk), with expires_at the
// reservation's expiry (on the real clock, plus the TTL margin), and per counter an
// Update that applies limiter.Set.Settle to the guess of its state, conditioned on the
// branch the guess is in; a counter the settlement leaves unchanged (a charge of 0 to a
// set without concurrency) has no Update. A refund or a release that changes nothing on
// a guess not read from the item in this call (another instance may have taken the
// slot, or opened the window, since) is a probe instead, whose condition always fails,
// so that the item comes back and the retry decides on its true state: a settle from an
// instance that has not seen the key costs two round trips. A concurrency release is
// relative, SET g.x = g.x - 1, ADD n -1, conditioned on g.x > 0, l < x (x live) and
// every live expiry between the slot's own and x (each multiple of the lease's
// quantum there, whether the guess holds an entry there or not) absent or holding no
// slot: settles do not conflict with the instances taking slots, and a slot filed
// where the guess has none is released rather than x. A fixed window (not anchored to a
// first request) that the settlement leaves in its window is relative too: ADD c
// :delta, conditioned on ws = :ws (and, for a refund, on c holding the whole refund),
// so settles and decisions of one window do not conflict. Every other rule's change is
// pinned: each attribute it reads is conditioned on its guessed value and the changed
// ones are SET, so a settle retries after any write to that rule. A cancellation by the
// marker's condition means settled before: false, nothing changed. One by a counter's
// condition carries its item, whose state becomes the guess for a retry after a short
// jittered wait (at most maxSettleAttempts, 12, then ErrContention: a settle runs off
// the request's budget, and its transaction conflicts with every write of the item
// meanwhile). The SDK retries the transaction once on a lost reply or a 5xx under
// the call's ClientRequestToken, so it applies once. A settlement at or after its
// expiry answers false without a request.
//
// A settle writes the marker and the changed counters in a transaction, 2 write units
// per item under 1 KB: 4 for one counter, 6 for two, 8 for three (2 when no counter
// changes). Markers live in the counters table until their TTL, about 40 bytes each.
//
// # Limits and costs
//
// The rule bounds (limits, bursts and costs up to 10^12, periods up to 31 days) stay
// exact in DynamoDB numbers (38 digits): a bucket's t is at most about 7.6e27 (28
// digits), counts at most 2e12. The Go that builds the expressions forms t and its
// steps with math/big, and a sliding window's weighted previous count, prev x (period
// - elapsed) / period, in 128 bits (about 2.7e24 before the division).
//
// DynamoDB performs two underlying writes of every item of a transaction (prepare and
// commit): a decision over n counters whose items are under 1 KB costs 2n write units
// (4 for 2 counters, 6 for 3), against 1 for one counter.
//
// A sliding_log rule keeps its entries in the item: its limit is capped at MaxLogLimit
// (1000). Counters.CheckRule (store.RuleChecker) says so, for config to be refused
// when it is written; Decide refuses such a set with ErrUnsupported. An entry costs about 25 bytes, so an item stays under 1 KB (1 write unit per
// decision) while a log holds fewer than about 30 distinct instants in its period, and
// a full log of 1000 costs about 25 write units per decision. A concurrency rule holds
// at most 17 live entries (limiter.LeaseQuanta + 1), about 25 bytes each, whatever its
// limit: up to about 450 bytes of the item.
//
// # Clocks
//
// The caller's clock is the clock. With instances whose clocks differ by at most d, the
// state's l attribute carries the latest clock seen, so an instance that is behind uses
// the leader's time (no extra refill), and the overshoot is what the fastest clock
// grants early: at most d x limit/period requests for a bucket (a one-off, not per
// period), and a fixed or sliding window that opens up to d early.
//
// Items carry expires_at (epoch seconds) for DynamoDB TTL: the real time now plus how
// long the state stays live past the decision's instant (limiter.Set.IdleAt, an upper
// bound for buckets), plus a margin. It follows the real clock because DynamoDB deletes
// on its own clock, whatever instant the caller passed. TTL deletion is lazy, and an
// expired item still read is harmless: its state is equivalent to a new key's.
//
// # Tenants
//
// Tenants, the store.Tenants and store.Plans, writes conditionally on the tenant's
// (or plan's) version.
//
// One table with a string partition key "pk" (CreateTable makes it) holds three kinds
// of items:
//
//	pk = "tenant#<id>"   doc (S): the tenant JSON; version (N): the condition of every
//	                     write; keys (M): key id -> key record JSON, the tenant's keys;
//	                     keyrev (N): bumped when a key is added or deleted; plan (S):
//	                     the plan it names, absent for none
//	pk = "key#<sha256>"  doc (S): the key record JSON; tenant (S): its tenant id
//	pk = "plan#<id>"     doc (S): the plan JSON; version (N); users (N): how many
//	                     tenants name it
//
// A tenant write that joins a plan is a transaction with an ADD of 1 to the plan's
// users conditioned on the plan existing (a missing plan is tenant.UnknownPlan), and
// one that leaves it adds -1, conditioned on the plan the tenant was read on; DeletePlan
// is one DeleteItem conditioned on version and users = 0, so no tenant can come to name
// a deleted plan. Replace reads the tenant's plan first, then writes in a transaction
// conditioned on its version and that plan. A refused DeletePlan names a tenant found
// by a Scan on plan, which may find none when the tenants are leaving the plan.
//
// Key writes, Replace, a Create on a plan and Delete are transactions that the
// client's SDK retries as it retries every call (its default: throttles, 5xx, lost
// replies); their ClientRequestToken makes a retry apply once
// (TestTransactionRetriedOnce). ReplacePlan is one UpdateItem
// conditioned on version, with ALL_OLD returned on failure to tell a missing plan from
// a stale version without a read. Key writes are transactions (TransactWriteItems)
// over the key item and its tenant item, so the tenant's list and the lookup items
// never disagree; Delete removes the tenant and all its key items in one transaction
// conditioned on version and keyrev, so a key added meanwhile cannot outlive it.
// LookupKey is one strongly consistent GetItem by hash: a revocation takes effect at
// once.
//
// List is a strongly consistent Scan filtered on the "tenant#" prefix: the order is
// DynamoDB's (stable, not by id), and the page token encodes the key the scan resumes
// after, as LastEvaluatedKey does. A scan reads the key items too: List costs grow
// with the table, which suits an admin API over thousands of tenants, not more.
//
// The SDK client is passed in; for DynamoDB Local, build it with BaseEndpoint set (or
// AWS_ENDPOINT_URL_DYNAMODB). Point-in-time recovery belongs to the deployment
// template, not to CreateTable.
package dynamodb
