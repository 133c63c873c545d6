// Package store defines the two storage contracts and the rules every implementation
// keeps: Counters, the shared state behind every decision, and Tenants, the tenants
// and their API key records (with the tenants file, EDGELIMIT_TENANTS_FILE).
//
// Counters:
//
//   - One decision is one atomic step for a key, a rule set and a cost: allowed only if
//     every rule allows, then consumed from every rule; a denial consumes nothing.
//   - Decisions equal pkg/limiter's, decision by decision (the storetest suite checks it).
//   - Instances sharing a backend never admit more than one serial limiter would.
//   - Errors mean backend failure (or input that pkg/limiter rejects); a denial is a
//     Decision, never an error. Backend failures never panic.
//
// Tenants: every write of a tenant is conditional on its version, the admin API's
// ETag: Create fails with ErrExists when the id is taken and stores version 1; Replace
// and Delete take the version the caller read and fail with ErrVersionConflict when
// another write came first, so concurrent admins never lose an update silently. Keys
// are stored as apikey.Record values (the SHA-256 of the key, never the key) and looked
// up by hash.
//
// Implementations live in subpackages, one per technology, each holding both stores and
// passing the storetest conformance suite: memory (embedded, single instance; also what
// the tenants file loads into), dynamodb (conditional writes) and upstash (Redis over
// REST, Lua scripts).
package store
