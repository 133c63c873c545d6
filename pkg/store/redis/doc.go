// Package redis is the storage over Redis and Valkey, Counters and Tenants, spoken in
// RESP: self-hosted servers, ElastiCache (cluster mode on or off, Serverless) and
// MemoryDB. Both share one Client, one pool of connections (rueidis), created once
// per process.
//
// It runs the Upstash store's scripts with the same KEYS, ARGV and replies, and keeps
// its layouts: what the two share is written once, in pkg/store/internal/luascript.
//
// Counters decides a request with one EVALSHA of decide.lua over every counter of the
// request, or of bucket.lua, its fast path for a single counter of one bucket rule;
// EVAL with the script's text follows only when the server answers NOSCRIPT (a cold
// script cache). Settle (store.Settler) is one EVALSHA of the settle script,
// decide.lua's functions followed by settle.lua. The Client never retries a command, since a retry after a lost reply
// would consume twice; each command is bounded by its context.
//
// Tenants is the Upstash store's Tenants over a RESP TenantsConn: the same scripts and
// logic. A key is looked up with a GET of its record, its tenant with an HMGET: no
// script reads a key it does not declare.
//
// # Layout and hash tags
//
// Every key carries a hash tag, so that the keys a script touches share a Redis
// Cluster hash slot, as they must. A counter's keys are the Upstash store's, built from
// the counter key with its tenant in front as the tag (tenant.CounterKeyTenant), so
// every key of a tenant, and so of one decision, is in one slot:
//
//	el:h:{acme}c1|4:acme|0|12:POST /orders|1:t          hash: every rule's state
//	el:l:<len>:{acme}c1|4:acme|0|...|1:t:<state id>     sorted set: a sliding_log or
//	                                                    concurrency rule
//	el:s:<id>:{acme}c1|4:acme|0|...                     string: a settlement's marker
//
// A key that is not a counter key is its own tag. The tenants live under a prefix
// (default "el:t:"), which is their tag:
//
//	{el:t:}tenant:<id>     hash: doc, version, keyrev, plan (the plan it names, checked by the scripts)
//	{el:t:}keys:<id>       hash: key id -> key record JSON
//	{el:t:}key:<sha256>    string: the key record JSON, for lookups by hash
//	{el:t:}ids             sorted set of tenant ids, for List by id
//	{el:t:}plan:<id>       hash: doc, version (a plan, store.Plans)
//	{el:t:}plans           sorted set of plan ids, for ListPlans
//	{el:t:}planusers:<id>  sorted set of the ids of the tenants on the plan
//
// so on a cluster all of them are in one slot: their scripts span a tenant, the list
// of ids and key records found by hash alone, which only one slot can hold together.
// Tenants are few and cached by the authorizer; the counters, which carry the
// traffic, spread over the slots by tenant.
//
// Errors never quote a reply's bytes, which are stored data and end in the decision
// log's reason: a script's answer of the wrong kind is an ErrMalformedScriptReply that
// names the element and its RESP type (rueidis's own parse errors name types only),
// and a stored tenant that does not decode is described by its length and JSON fault.
// The one text quoted is the server's own error (a *rueidis.RedisError: "WRONGTYPE
// ...", a Lua error), which is the server's message, not data.
package redis
