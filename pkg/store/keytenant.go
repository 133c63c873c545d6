package store

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// KeyTenantLookup is a capability a Tenants may offer beside the contract: a key record
// and its tenant in one round trip, where LookupKey then Get take two. The gate uses it,
// when its store offers it, for every key it must load (pkg/gate, configuration
// caching).
//
// No store offers it now. memory has no need: its two reads cost no round trip; the
// Upstash and Redis stores could only with a script that reads a key it does not
// declare, which Upstash runs under its database-wide script lock. DynamoDB cannot: the tenant's id is known only from the record,
// and a GetItem, BatchGetItem or TransactGetItems names every item before it runs, so
// the tenant takes a second request whatever the call.
type KeyTenantLookup interface {
	// LookupKeyTenant answers what LookupKey(hash), then Get(rec.TenantID), answer:
	//   - the key not found (an unknown or malformed hash: ErrNotFound; a revoked key:
	//     ErrRevoked) or the read failed: a zero record and tenant, and LookupKey's
	//     error;
	//   - the key found: its record, and the tenant with Get's error: nil, ErrNotFound
	//     when the tenant does not exist, or the failure to read it.
	// A record that is not zero therefore always means the key was found.
	LookupKeyTenant(ctx context.Context, hash string) (apikey.Record, tenant.Tenant, error)
}
