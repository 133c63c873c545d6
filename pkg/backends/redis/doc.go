// Package redis is the backends.Store over Redis and Valkey, spoken in RESP:
// self-hosted servers, ElastiCache (cluster mode on or off, Serverless) and MemoryDB.
//
// It runs the Upstash backend's scripts (pkg/backends/upstash: decide.lua, and
// bucket.lua, its fast path for a set of one bucket rule), with the same KEYS, ARGV and
// replies: one EVALSHA per decision, followed by EVAL with the script's text only when
// the server answers NOSCRIPT (a cold script cache). The client (Client, over rueidis)
// never retries a command, since a retry after a lost reply would consume twice; each
// command is bounded by its context.
//
// # Layout and hash tags
//
// The keys are the Upstash backend's (upstash.HashKey, upstash.LogKey), each built
// from the counter key with its hash tag in front:
//
//	el:h:{acme}c1|4:acme|0|12:POST /orders|1:t          hash: every rule's state
//	el:l:<len>:{acme}c1|4:acme|0|...|1:t:<state id>     sorted set: a sliding_log rule
//
// The tag is the tenant id read from the counter key (tenant.CounterKeyTenant), so in
// a Redis Cluster every key of a tenant, and so every key of one decision, lands in
// one hash slot, as a script's keys must. A key that is not a counter key is its own
// tag. Every key a script touches is in KEYS.
package redis
