// Package upstash is the tenantstore.Store over Upstash Redis, through the project's
// REST client (pkg/backends/upstash). Every conditional write is one small Lua script
// (the .lua files beside this package's Go), which declares in KEYS every key it
// touches, as Upstash's per-key locking requires.
//
// The layout, under a prefix (default "el:t:"):
//
//	PREFIX tenant:<id>   hash: doc (the tenant JSON), version, keyrev (bumped when a key
//	                     is added or deleted)
//	PREFIX keys:<id>     hash: key id -> key record JSON, the tenant's keys
//	PREFIX key:<sha256>  string: the key record JSON, for lookups by hash
//	PREFIX ids           sorted set of tenant ids, all scores 0, for List by id
//
// Versions are compared in the scripts as the decimal strings they are stored as. List
// pages through the ids with ZRANGE BYLEX and fetches the tenants in one pipeline, in
// order of id. Deleting a tenant reads its keys, then deletes everything in one script
// conditioned on version and keyrev, so no key added meanwhile outlives it.
package upstash
