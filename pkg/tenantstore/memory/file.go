package memory

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenantstore"
)

// LoadFile returns a Store holding the tenants and key records of the tenants file at
// path (see tenantstore.File). When check is not nil, every rule of the file must pass
// it: pass the counter store's backends.CheckRule, so that a rule the store cannot
// honour fails the load. Errors are *tenantstore.FileError naming the file, the entry
// and the field.
func LoadFile(path string, check func(limiter.Rule) error) (*Store, error) {
	s := New()
	if err := tenantstore.LoadFile(context.Background(), path, s, check); err != nil {
		return nil, err
	}
	return s, nil
}
