// Package memory is the embedded storage: Counters and Tenants in this process's
// memory, for local runs (`edgelimit dev`, `edgelimit simulate`), tests, the tenants
// file (EDGELIMIT_TENANTS_FILE, see LoadFile) and single-instance deployments.
//
// Counters keeps per-key state and calls pkg/limiter directly, so it is the
// specification run as a backend. It is safe for concurrent use: keys are spread over
// independently locked shards, and a decision holds one shard's lock for one
// limiter.Set decision, so goroutines on one key admit exactly what a serial limiter
// would. A key is hashed once per decision (hash/maphash, seeded per store): the hash
// chooses the shard and keys the shard's table, where keys whose hashes collide are
// chained and told apart by the key itself.
//
// Memory stays bounded by the keys in use: a key whose state is equivalent to a new
// key's (limiter.Set.IdleAt: its windows ended, its buckets full) is deleted by the next
// sweep of its shard, which runs whenever the shard has doubled since the last one.
// Each key costs about 140 bytes plus its length, plus 96 bytes per rule
// (unsafe.Sizeof(limiter.State)), plus, for a sliding_log rule, 16 bytes per distinct
// admitted instant still in its period, at most limit of them, in a ring buffer that
// grows by doubling (so at most 32 bytes per instant). Limits go up to 10^12, so above
// about a million it is the traffic, not the limit, that bounds a log: 1,000 distinct
// instants a second over an hour's period are 3.6 million entries, about 115 MB.
//
// The hot path (a key already seen, the same *limiter.Set) does not allocate.
//
// Tenants keeps copies of what it is given and hands out copies, so callers cannot
// change its state except through its methods. List returns tenants in order of id.
package memory
