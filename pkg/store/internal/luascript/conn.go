package luascript

import "context"

// TenantsConn carries a Tenants' commands to Redis: over the Upstash REST API
// (pkg/store/upstash) or over RESP (pkg/store/redis). Each method is one
// round trip.
type TenantsConn interface {
	// Eval runs a script whose answer is an integer.
	Eval(ctx context.Context, script *Script, keys []string, args ...any) (int64, error)
	// Tenants reads the fields doc and version of the tenant hashes keys, in one round
	// trip: one Stored per key, Found false for a hash that does not exist.
	Tenants(ctx context.Context, keys []string) ([]Stored, error)
	// KeyState reads, in one transaction, the version and keyrev of the tenant hash
	// tenantKey and every field of its hash of keys keysKey.
	KeyState(ctx context.Context, tenantKey, keysKey string) (KeyState, error)
	// Get reads a string key: ok false when it does not exist.
	Get(ctx context.Context, key string) (value string, ok bool, err error)
	// RangeByLex returns up to n members of the sorted set key, in lexical order, from
	// start on ("-" for the first, "(member" for those after member).
	RangeByLex(ctx context.Context, key, start string, n int) ([]string, error)
}

// Stored is a tenant as its hash holds it: its JSON and its version.
type Stored struct {
	Doc, Version string
	Found        bool
}

// KeyState is a tenant's version and keyrev, and its key records (key id -> JSON).
type KeyState struct {
	Version, Keyrev string
	Keys            map[string]string
	Found           bool
}
