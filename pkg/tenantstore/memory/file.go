package memory

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/tenantstore"
)

// LoadFile returns a Store holding the tenants and key records of the tenants file at
// path (see tenantstore.File). Errors are *tenantstore.FileError naming the file, the
// entry and the field.
func LoadFile(path string) (*Store, error) {
	s := New()
	if err := tenantstore.LoadFile(context.Background(), path, s); err != nil {
		return nil, err
	}
	return s, nil
}
