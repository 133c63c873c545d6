// Package redis is the tenantstore.Store over Redis and Valkey, spoken in RESP through
// the counter backend's client (pkg/backends/redis), so that one connection pool serves
// both stores.
//
// It runs the Upstash tenant store's scripts (pkg/tenantstore/upstash: create, replace,
// delete, put and change a key) and keeps its layout (upstash.Layout), with the prefix
// (default "el:t:") as the hash tag of every key:
//
//	{el:t:}tenant:<id>   hash: doc, version, keyrev
//	{el:t:}keys:<id>     hash: key id -> key record JSON
//	{el:t:}key:<sha256>  string: the key record JSON, for lookups by hash
//	{el:t:}ids           sorted set of tenant ids, for List by id
//
// On a Redis Cluster the whole store is thus in one hash slot: its scripts span a
// tenant, the list of ids and key records found by hash alone, which only one slot can
// hold together. Tenants are few and cached by the authorizer, so one slot carries
// them; the counters, which carry the traffic, are spread by tenant.
package redis
