// Package upstash is the storage over Upstash Redis, Counters and Tenants, through
// the project's REST client, which NewClient makes (Client, ClientConfig and the
// client's errors are aliases of internal/upstashrest's: no Upstash Go module is
// served to us, so the module has its own). Every write is a Lua script (shared with
// pkg/store/redis in pkg/store/internal/luascript), which declares in KEYS every key
// it touches, as Upstash's per-key locking requires.
//
// Counters, the store.Counters, decides a request with one script call, decide.lua
// (embedded), over every counter of the request: one EVALSHA, so one HTTP request when
// the server's script cache is warm. KEYS declares every key the script touches (Upstash's key locking
// requires it): each counter's hash, then the sorted set of each sliding_log and
// concurrency rule.
// The script evaluates every rule of every counter before it writes anything, and
// writes to all of them only when all allow. It answers 5 integers per rule, counter
// after counter, which Counters checks (their number and each outcome: a wrong reply
// is ErrMalformedScriptReply) and folds per counter with limiter.Set.Combine.
// Peek is the same script over one counter in peek mode. Settle (store.Settler) is
// one call of the settle script (decide.lua's functions, then settle.lua), which also
// declares the settlement's idempotency marker.
//
// Tenants, the store.Tenants, keeps its layout under a prefix (default "el:t:"):
//
//	PREFIX tenant:<id>   hash: doc (the tenant JSON), version, keyrev (bumped when a key
//	                     is added or deleted)
//	PREFIX keys:<id>     hash: key id -> key record JSON, the tenant's keys
//	PREFIX key:<sha256>  string: the key record JSON, for lookups by hash
//	PREFIX ids           sorted set of tenant ids, all scores 0, for List by id
//	PREFIX plan:<id>     hash: doc (the plan JSON), version: the store.Plans
//	PREFIX plans         sorted set of plan ids, for ListPlans
//	PREFIX planusers:<id> sorted set of the ids of the tenants on the plan
//
// The tenant hash's field plan names the tenant's plan. The scripts that write a tenant
// check that its plan exists and keep the plans' users, and the one that deletes a
// plan refuses it while it has users, each in one script: no tenant can come to name a
// plan that is gone.
//
// Reads are plain commands: LookupKey a GET of the record, Get an HMGET of the tenant.
// There is no one call for both: one script reading both could not
// declare the tenant's hash (its name is in the record), and Upstash runs such a
// script under its database-wide lock.
//
// Versions are compared in the scripts as the decimal strings they are stored as. List
// pages through the ids with ZRANGE BYLEX and fetches the tenants in one pipeline, in
// order of id. Deleting a tenant reads its keys, then deletes everything in one script
// conditioned on version and keyrev, so no key added meanwhile outlives it.
package upstash
