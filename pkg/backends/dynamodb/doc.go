// Package dynamodb is the backends.Store over Amazon DynamoDB: one item per limited
// key holding the state of every rule of its set, and one conditional UpdateItem per
// decision.
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
// # Limits and costs
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
