package memory

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// LoadFile returns a Tenants holding the tenants and key records of the tenants file at
// path (see store.File). When check is not nil, every rule of the file must pass
// it: pass the counter store's store.CheckRule, so that a rule the store cannot
// honour fails the load. Errors are *store.FileError naming the file, the tenantEntry
// and the field.
func LoadFile(path string, check func(limiter.Rule) error) (*Tenants, error) {
	s, ctx := NewTenants(), context.Background()
	err := store.LoadFileWith(path, check, func(t tenant.Tenant) error { _, err := s.Create(ctx, t); return err },
		func(r apikey.Record) error { return s.PutKey(ctx, r) })
	if err != nil {
		return nil, err
	}
	return s, nil
}
