// Package dynamodb is the backends.Store over Amazon DynamoDB: one item per limited
// key holding the state of every rule of its set, one conditional UpdateItem per
// decision over one counter, and one TransactWriteItems per decision over several.
//
// # How one write decides
//
// The Store keeps, per key, the last state it saw (its guess). For a request it runs
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
//	                n <= :limit-cost+expired, expired entries exist    SET g.now = g.now + cost,
//	                                                                   ADD n, REMOVE expired
//
// (t is the bucket's theoretical arrival time in units of 1/limit microsecond, an exact
// integer; every rule also conditions l <= :now and sets l, the clock-skew rule.)
// Relative updates (ADD, t = t + x) do not conflict with each other, so concurrent
// instances on one key all succeed while the request fits; absolute SETs on a pinned
// old value conflict, and the loser retries. The write asks for ALL_OLD both on success
// and on ConditionalCheckFailedException, so the Store always learns the true state
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
// them or none, so the request is consumed from every counter or from none. The Store
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
//     the true states allow after all, the Store retries with them.
//   - When some condition fails, DynamoDB cancels the transaction
//     (TransactionCanceledException) and each ConditionalCheckFailed reason carries
//     its item as it was: those true states become the guesses. When one of those
//     counters denies on its true state, the request is denied at once, nothing
//     written (the other counters' decisions come from their guesses, off as above);
//     otherwise the Store retries. A TransactionConflict reason (another transaction
//     holds the item) is retried too; ThrottlingError and ProvisionedThroughputExceeded
//     are ErrThrottled, and other reasons an error.
//
// Attempts are bounded as for one counter (3, then ErrContention), SDK retries are off,
// and a reply lost after DynamoDB committed may consume once. An UpdateItem on an item
// that a transaction holds fails with TransactionConflictException; the single-counter
// path retries it like a failed condition. Concurrent transactions on one item
// conflict where concurrent ADDs would not, so one tenant-scope item decided by many
// instances at once is where contention shows first.
//
// # Limits and costs
//
// DynamoDB performs two underlying writes of every item of a transaction (prepare and
// commit): a decision over n counters whose items are under 1 KB costs 2n write units
// (4 for 2 counters, 6 for 3), against 1 for one counter.
//
// A sliding_log rule keeps its entries in the item: its limit is capped at MaxLogLimit
// (1000). Store.CheckRule (backends.RuleChecker) says so, for config to be refused
// when it is written; Decide refuses such a set with ErrUnsupported. An entry costs about 25 bytes, so an item stays under 1 KB (1 write unit per
// decision) while a log holds fewer than about 30 distinct instants in its period, and
// a full log of 1000 costs about 25 write units per decision.
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
package dynamodb
