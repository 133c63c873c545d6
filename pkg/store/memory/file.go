package memory

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// LoadFile returns a Tenants holding the tenants and key records of the tenants file at
// path (see store.File). When check is not nil, every rule of the file must pass
// it: pass the counter store's store.CheckRule, so that a rule the store cannot
// honour fails the load. Errors are *store.FileError naming the file, the tenantEntry
// and the field.
func LoadFile(path string, check func(limiter.Rule) error) (*Tenants, error) {
	s := NewTenants()
	if err := store.LoadFile(context.Background(), path, s, check); err != nil {
		return nil, err
	}
	return s, nil
}
