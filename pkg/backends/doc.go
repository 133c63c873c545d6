// Package backends defines Store, the shared state behind every decision, and the
// rules every implementation keeps:
//
//   - One decision is one atomic step for a key, a rule set and a cost: allowed only if
//     every rule allows, then consumed from every rule; a denial consumes nothing.
//   - Decisions equal pkg/limiter's, decision by decision (the storetest suite checks it).
//   - Instances sharing a backend never admit more than one serial limiter would.
//   - Errors mean backend failure (or input that pkg/limiter rejects); a denial is a
//     Decision, never an error. Backend failures never panic.
//
// Implementations live in subpackages: memory (embedded, single instance), upstash
// (Redis over REST, Lua scripts) and dynamodb (conditional writes).
package backends
