package upstash

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
	"github.com/edgelimit/edgelimit/pkg/upstashrest"
)

var _ store.Tenants = (*Tenants)(nil)

var (
	//go:embed create.lua
	createSource string
	//go:embed replace.lua
	replaceSource string
	//go:embed delete.lua
	deleteSource string
	//go:embed putkey.lua
	putKeySource string
	//go:embed changekey.lua
	changeKeySource string

	createScript    = upstashrest.NewScript(createSource)
	replaceScript   = upstashrest.NewScript(replaceSource)
	deleteScript    = upstashrest.NewScript(deleteSource)
	putKeyScript    = upstashrest.NewScript(putKeySource)
	changeKeyScript = upstashrest.NewScript(changeKeySource)
)

// DefaultPrefix starts every key of a Tenants whose TenantsConfig.Prefix is empty.
const DefaultPrefix = "el:t:"

// maxAttempts bounds the read-then-write loops that retry when another writer changed
// the tenant's keys in between.
const maxAttempts = 10

// ErrBusy is returned when a key change or Delete lost maxAttempts races in a row with
// other writes to the same tenant's keys. Nothing was changed; the call may be retried.
var ErrBusy = errors.New("tenantstore/upstash: the tenant's keys kept changing; nothing was written")

// TenantsConfig configures a Tenants. Its zero value means the defaults.
type TenantsConfig struct {
	// Prefix starts every Redis key the store uses; "" means DefaultPrefix.
	Prefix string
}

// Tenants is the store.Tenants over Upstash Redis. Create it with New. It is safe for
// concurrent use.
type Tenants struct {
	c      *upstashrest.Client
	prefix string
}

// NewTenants returns a Tenants that sends its commands through c.
func NewTenants(c *upstashrest.Client, cfg TenantsConfig) *Tenants {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	return &Tenants{c: c, prefix: cfg.Prefix}
}

func (s *Tenants) tenantKey(id string) string   { return s.prefix + "tenant:" + id }
func (s *Tenants) keysKey(id string) string     { return s.prefix + "keys:" + id }
func (s *Tenants) recordKey(hash string) string { return s.prefix + "key:" + hash }
func (s *Tenants) idsKey() string               { return s.prefix + "ids" }

// Create stores a new tenant with version 1.
func (s *Tenants) Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, err := store.PrepareCreate(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	doc, err := json.Marshal(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	code, err := s.eval(ctx, createScript, []string{s.tenantKey(t.ID), s.idsKey()}, string(doc), t.ID)
	switch {
	case err != nil:
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: create %s: %w", t.ID, err)
	case code == 0:
		return tenant.Tenant{}, store.ErrExists
	}
	return t, nil
}

// Get returns the tenant.
func (s *Tenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	if !tenant.ValidID(id) {
		return tenant.Tenant{}, store.ErrNotFound
	}
	r, err := s.c.Do(ctx, "HMGET", s.tenantKey(id), "doc", "version")
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: get %s: %w", id, err)
	}
	return decodeTenant(r)
}

// decodeTenant reads the reply to HMGET doc version.
func decodeTenant(r upstashrest.Reply) (tenant.Tenant, error) {
	fields, err := r.Array()
	if err != nil || len(fields) != 2 {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: tenant reply %v: %w", r, upstashrest.ErrMalformedReply)
	}
	if fields[0].IsNil() {
		return tenant.Tenant{}, store.ErrNotFound
	}
	doc, err1 := fields[0].String()
	version, err2 := fields[1].String()
	if err := errors.Join(err1, err2); err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: tenant reply: %w", err)
	}
	var t tenant.Tenant
	if err := json.Unmarshal([]byte(doc), &t); err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: stored tenant: %w", err)
	}
	if t.Version, err = strconv.ParseInt(version, 10, 64); err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: stored version %q: %w", version, err)
	}
	return t, nil
}

// Replace stores t when the stored version is ifVersion: one script.
func (s *Tenants) Replace(ctx context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, err := store.PrepareReplace(t, ifVersion)
	if err != nil {
		return tenant.Tenant{}, err
	}
	doc, err := json.Marshal(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	code, err := s.eval(ctx, replaceScript, []string{s.tenantKey(t.ID)}, strconv.FormatInt(ifVersion, 10), strconv.FormatInt(t.Version, 10), string(doc))
	switch {
	case err != nil:
		return tenant.Tenant{}, fmt.Errorf("tenantstore/upstash: replace %s: %w", t.ID, err)
	case code == -1:
		return tenant.Tenant{}, store.ErrNotFound
	case code == -2:
		return tenant.Tenant{}, store.ErrVersionConflict
	}
	return t, nil
}

// eval runs a script whose answer is an integer code.
func (s *Tenants) eval(ctx context.Context, script *upstashrest.Script, keys []string, args ...any) (int64, error) {
	r, err := s.c.Eval(ctx, script, keys, args...)
	if err != nil {
		return 0, err
	}
	code, err := r.Int64()
	if err != nil {
		return 0, err
	}
	if code < -3 || code > 1 {
		return 0, fmt.Errorf("%w: script answered %d", upstashrest.ErrMalformedReply, code)
	}
	return code, nil
}
