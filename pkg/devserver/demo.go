package devserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// DemoTenant is the tenant `edgelimit dev` creates: 5 requests per 10 seconds, the
// window opened by the first request (so that the sixth request within 10 s of the
// first is denied, wherever the clock stands).
const DemoTenant = `{"id": "demo", "rules": [{"name": "demo", "algorithm": "fixed_window", "limit": 5, "period": "10s", "anchor": "first_request"}]}`

// EnsureDemo creates the demo tenant unless a tenant "demo" exists, gives it a new API
// key, and returns the raw key (shown once; only its hash is stored).
func EnsureDemo(ctx context.Context, tenants store.Tenants, now int64) (string, error) {
	t, err := tenant.Decode([]byte(DemoTenant))
	if err != nil {
		return "", err
	}
	if _, err := tenants.Create(ctx, tenant.ApplyCreate(t)); err != nil && !errors.Is(err, store.ErrExists) {
		return "", fmt.Errorf("creating the demo tenant: %w", err)
	}
	key, rec := apikey.Generate(t.ID, now)
	if err := tenants.PutKey(ctx, rec); err != nil {
		return "", fmt.Errorf("storing the demo key: %w", err)
	}
	return key.Reveal(), nil
}
