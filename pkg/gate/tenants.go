package gate

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Tenants is what the gate reads of a tenant store: a key record by its hash and a
// tenant by its id, each failing with an error matching store.ErrNotFound when
// there is none. Every store.Tenants is one; the gate writes nothing.
type Tenants interface {
	LookupKey(ctx context.Context, hash string) (apikey.Record, error)
	Get(ctx context.Context, id string) (tenant.Tenant, error)
}

var _ Tenants = store.Tenants(nil)

// Plans is what the gate reads of plans: a plan by its id, failing with an error
// matching store.ErrNotFound when there is none. Every store.Plans is one; a Tenants
// that is also a Plans serves the plans its tenants name, read once per ConfigTTL per
// gate whatever the number of tenants on them.
type Plans interface {
	GetPlan(ctx context.Context, id string) (tenant.Plan, error)
}

var _ Plans = store.Plans(nil)

// KeyLister is what the gate reads of a tenant's key records: all of them, revoked
// ones included until purged, failing with an error matching store.ErrNotFound when
// the tenant does not exist. Every store.Tenants is one. Settle reads it only for a
// reservation of a key with rules of its own that LookupKey no longer finds (revoked
// since the decision), to compile its rules again and free what the request holds; a
// Tenants that is not a KeyLister answers such a settle rules_changed.
type KeyLister interface {
	ListKeys(ctx context.Context, tenantID string) ([]apikey.Record, error)
}

var _ KeyLister = store.Tenants(nil)
