// Package luascript is what the Upstash store (pkg/store/upstash, over the REST API)
// and the Redis store (pkg/store/redis, over RESP) share, written once so that neither
// store's client owns it: the Lua scripts (the .lua files beside this package's Go,
// embedded), the names of the Redis keys they touch, the KEYS and ARGV of each script,
// the reading of their replies, the Counters' logic over a CountersConn and the
// Tenants' over a TenantsConn, which each store implements with its own client.
//
// A Script holds a script's two texts, plain and after KeyLockingShebang (Upstash's
// allow-key-locking, which requires that KEYS declare every key the script touches),
// and their SHA1s.
//
// The reading of replies quotes no stored byte in its errors: a script's impossible
// answer names the rule and the field at fault, not the counter's values, and a
// stored tenant that does not decode is described by its length and JSON fault
// (internal/redact).
package luascript
