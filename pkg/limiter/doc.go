// Package limiter is the specification of edgelimit's rate limiting: pure, deterministic
// algorithms with no I/O, over integer microseconds passed in by the caller.
//
// A Rule names an algorithm, a limit and a period (see Rule for the JSON contract). A Set
// is the rules of one tenant (or route), decided as one: a request is allowed only when
// every rule allows it, and then it is consumed from every rule; a denied request
// consumes nothing, whatever its cost. The per-key state of each rule is a small State
// value that a backend stores and hands back; Set.Decide reads and updates it.
//
// Every backend restates this package: the memory backend and `edgelimit simulate` call
// Set.Decide directly, the Redis scripts and DynamoDB expressions restate the same
// arithmetic, and a conformance suite requires identical decisions from all of them.
//
// Time is int64 microseconds since the Unix epoch (see Micros), never float seconds.
// Rules are bounded: limit and burst (so a request's cost) at most MaxLimit (10^12),
// periods from 1ms to 31 days, an empty bucket refilling within 10 years
// (MaxFillMicros), instants before 2200 (MaxTime). Every value a decision returns or
// stores stays below 2^53, so a backend working in doubles holds it exactly; products
// of two of them (a count times a period, about 2.7e24 at the bounds) exceed int64, and
// this package forms them in 128 bits (math/bits), without allocating.
//
// The algorithms:
//   - fixed_window: at most limit per window; windows are aligned to the Unix epoch, or
//     to calendar days, weeks (Monday) and months in the set's Zone, or opened by the
//     first allowed request (anchor "first_request").
//   - sliding_log: at most limit in every interval (t - period, t].
//   - sliding_window: the two-window counter approximation, in exact integers.
//   - token_bucket: limit tokens per period refilled continuously, capacity burst
//     (GCRA: one theoretical arrival time per key).
//   - leaky_bucket: admits exactly what token_bucket admits, and reports the delay at
//     which a constant outflow reaches each admitted request.
//
// The clock-skew rule: a now earlier than the state's last update counts as no elapsed
// time, so state never moves backwards when instances' clocks disagree.
package limiter
