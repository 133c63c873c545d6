package devserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// DemoTenantID is the id of the demo tenant.
const DemoTenantID = "demo"

// DemoTenant is the tenant `edgelimit dev` creates: 5 requests per 10 seconds, the
// window opened by the first request (so that the sixth request within 10 s of the
// first is denied, wherever the clock stands).
const DemoTenant = `{"id": "demo", "rules": [{"name": "demo", "algorithm": "fixed_window", "limit": 5, "period": "10s", "anchor": "first_request"}]}`

// DemoKeyMetadata is the demo tenant's metadata entry that holds the key id of the key
// `edgelimit dev` issued for it last, so that the next start finds it again.
const DemoKeyMetadata = "edgelimit-dev:demo-key"

// demoAttempts bounds the retries of EnsureDemo when the tenant changes meanwhile.
const demoAttempts = 3

// Demo is what EnsureDemo did.
type Demo struct {
	// Key is the new demo key (shown once; only its hash is stored), or "" when the
	// tenant has no room for another key (Full).
	Key string
	// Created: the demo tenant did not exist and was created.
	Created bool
	// Replaced is the key id of the previous demo key, now deleted, or "".
	Replaced string
	// Full: the tenant already holds store.MaxKeysPerTenant keys, none of them
	// the previous demo key: no key was issued.
	Full bool
	// Rules are the demo tenant's rules as stored (DemoTenant's, unless an admin
	// changed them).
	Rules []limiter.Rule
}

// EnsureDemo creates the demo tenant unless a tenant "demo" exists, and gives it a new
// API key in place of the one an earlier start issued: the new key is stored, recorded
// in the tenant's metadata (DemoKeyMetadata), and the previous one deleted, so that any
// number of starts on a persistent store leave one demo key. Other keys of the tenant,
// and its rules, are left as they are. now is in microseconds.
func EnsureDemo(ctx context.Context, tenants store.Tenants, now int64) (Demo, error) {
	var demo Demo
	t, err := tenant.Decode([]byte(DemoTenant))
	if err != nil {
		return Demo{}, err
	}
	_, err = tenants.Create(ctx, tenant.ApplyCreate(t))
	switch {
	case err == nil:
		demo.Created = true
	case !errors.Is(err, store.ErrExists):
		return Demo{}, fmt.Errorf("creating the demo tenant: %w", err)
	}
	for attempt := 1; ; attempt++ {
		err := demo.replaceKey(ctx, tenants, t.ID, now)
		if !errors.Is(err, store.ErrVersionConflict) || attempt == demoAttempts {
			return demo, err
		}
	}
}

// replaceKey issues a new key for tenant id, records it, and deletes the previous one.
func (d *Demo) replaceKey(ctx context.Context, tenants store.Tenants, id string, now int64) error {
	stored, err := tenants.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("reading the demo tenant: %w", err)
	}
	d.Rules = stored.Rules
	previous := stored.Metadata[DemoKeyMetadata]
	if previous != "" {
		// Delete first: a tenant full of keys still gets its demo key replaced.
		if err := tenants.DeleteKey(ctx, id, previous); err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("deleting the previous demo key %s: %w", previous, err)
		}
		d.Replaced = previous
	}
	key, rec := apikey.Generate(id, now)
	err = tenants.PutKey(ctx, rec)
	if errors.Is(err, store.ErrTooManyKeys) {
		d.Full = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("storing the demo key: %w", err)
	}
	next := stored.Clone()
	if next.Metadata == nil {
		next.Metadata = map[string]string{}
	}
	next.Metadata[DemoKeyMetadata] = rec.KeyID
	if next, err = tenant.ApplyUpdate(stored, next, now); err == nil {
		_, err = tenants.Replace(ctx, next, stored.Version)
	}
	if err != nil {
		tenants.DeleteKey(ctx, id, rec.KeyID) // the key is not recorded: no start would find it
		return fmt.Errorf("recording the demo key in the tenant's metadata: %w", err)
	}
	d.Key = key.Reveal()
	return nil
}
