package upstash

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	rest "github.com/edgelimit/edgelimit/pkg/backends/upstash"
	"github.com/edgelimit/edgelimit/pkg/tenant"
	"github.com/edgelimit/edgelimit/pkg/tenantstore"
)

var _ tenantstore.Store = (*Store)(nil)

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

	createScript    = rest.NewScript(createSource)
	replaceScript   = rest.NewScript(replaceSource)
	deleteScript    = rest.NewScript(deleteSource)
	putKeyScript    = rest.NewScript(putKeySource)
	changeKeyScript = rest.NewScript(changeKeySource)
)

// DefaultPrefix starts every key of a Store whose Config.Prefix is empty.
const DefaultPrefix = "el:t:"

// maxAttempts bounds the read-then-write loops that retry when another writer changed
// the tenant's keys in between.
const maxAttempts = 10

// ErrBusy is returned when a key change or Delete lost maxAttempts races in a row with
// other writes to the same tenant's keys. Nothing was changed; the call may be retried.
var ErrBusy = errors.New("tenantstore: the tenant's keys kept changing; nothing was written")

// Config configures a Store. Its zero value means the defaults.
type Config struct {
	// Prefix starts every Redis key the store uses; "" means DefaultPrefix.
	Prefix string
}

// Store is the tenantstore.Store over Redis: Upstash's REST API (New), or RESP
// (pkg/tenantstore/redis). It is safe for concurrent use.
type Store struct {
	c    Conn
	l    Layout
	name string // starts its errors
}

// New returns a Store that sends its commands through the Upstash client c.
func New(c *rest.Client, cfg Config) *Store {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	return NewWith(restConn{c}, Layout{Prefix: cfg.Prefix}, "tenantstore/upstash")
}

// NewWith returns a Store that sends its commands through c, under the key names of l;
// name starts its errors ("tenantstore/redis").
func NewWith(c Conn, l Layout, name string) *Store {
	return &Store{c: c, l: l, name: name}
}

// fail says what failed; tenantstore's sentinels stay visible to errors.Is.
func (s *Store) fail(what string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.name, what, err)
}

// run runs a script and returns the error its answer means (Outcome).
func (s *Store) run(ctx context.Context, script *rest.Script, keys []string, args ...string) error {
	answer, err := s.c.Eval(ctx, script, keys, args...)
	if err != nil {
		return err
	}
	return Outcome(script, answer)
}

// Create stores a new tenant with version 1: create.lua.
func (s *Store) Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, err := tenantstore.PrepareCreate(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	doc, err := json.Marshal(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	if err := s.run(ctx, createScript, []string{s.l.Tenant(t.ID), s.l.IDs()}, string(doc), t.ID); err != nil {
		return tenant.Tenant{}, s.fail("create "+t.ID, err)
	}
	return t, nil
}

// Get returns the tenant: one HMGET.
func (s *Store) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	if !tenant.ValidID(id) {
		return tenant.Tenant{}, tenantstore.ErrNotFound
	}
	stored, err := s.c.Tenants(ctx, []string{s.l.Tenant(id)})
	if err != nil {
		return tenant.Tenant{}, s.fail("get "+id, err)
	}
	if !stored[0].Found {
		return tenant.Tenant{}, tenantstore.ErrNotFound
	}
	t, err := DecodeTenant(stored[0].Doc, stored[0].Version)
	if err != nil {
		return tenant.Tenant{}, s.fail("get "+id, err)
	}
	return t, nil
}

// Replace stores t when the stored version is ifVersion: replace.lua.
func (s *Store) Replace(ctx context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, err := tenantstore.PrepareReplace(t, ifVersion)
	if err != nil {
		return tenant.Tenant{}, err
	}
	doc, err := json.Marshal(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	err = s.run(ctx, replaceScript, []string{s.l.Tenant(t.ID)}, strconv.FormatInt(ifVersion, 10), strconv.FormatInt(t.Version, 10), string(doc))
	if err != nil {
		return tenant.Tenant{}, s.fail("replace "+t.ID, err)
	}
	return t, nil
}
