package luascript

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var (
	//go:embed keytenant.lua
	keyTenantSource string

	keyTenantScript = NewScript(keyTenantSource)
)

var _ store.KeyTenantLookup = (*Tenants)(nil)

// LookupKeyTenant reads the key record by hash and its tenant in one script call,
// keytenant.lua: one round trip where LookupKey then Get take two (two more when the
// server's script cache is cold: EVALSHA, then EVAL). The script reads the tenant's
// hash, whose name it finds in the record, without declaring it: Upstash runs it under
// its global script lock rather than per-key locks. A record whose tenant id the script
// cannot read (none has: every record is written by PutKey) has its tenant read apart.
// A server that refuses the script with an ERR reply (one that forbids undeclared keys
// in scripts, as Dragonfly does by default) is sent LookupKey then Get instead, from
// then on: two round trips, as before the script.
func (s *Tenants) LookupKeyTenant(ctx context.Context, hash string) (apikey.Record, tenant.Tenant, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, tenant.Tenant{}, store.ErrNotFound
	}
	if s.noKeyTenant.Load() {
		return s.lookupThenGet(ctx, hash)
	}
	got, err := s.c.EvalStrings(ctx, keyTenantScript, []string{s.l.Record(hash)}, s.l.Tenant(""))
	var ce *upstashrest.CommandError
	if errors.As(err, &ce) && ce.Code() == "ERR" {
		s.noKeyTenant.Store(true)
		return s.lookupThenGet(ctx, hash)
	}
	if err != nil {
		return apikey.Record{}, tenant.Tenant{}, s.fail("lookup key", err)
	}
	if len(got) != 0 && len(got) != 1 && len(got) != 4 {
		return apikey.Record{}, tenant.Tenant{}, s.fail("lookup key", fmt.Errorf("%w: keytenant.lua answered %d values", upstashrest.ErrMalformedReply, len(got)))
	}
	if len(got) == 0 || got[0] == "" {
		return apikey.Record{}, tenant.Tenant{}, store.ErrNotFound
	}
	rec, err := store.DecodeLookup(got[0], hash)
	if err != nil {
		return apikey.Record{}, tenant.Tenant{}, err
	}
	if len(got) != 4 || got[1] != rec.TenantID {
		t, err := s.Get(ctx, rec.TenantID)
		return rec, t, err
	}
	if !tenant.ValidID(rec.TenantID) || got[2] == "" {
		return rec, tenant.Tenant{}, store.ErrNotFound
	}
	t, err := DecodeTenant(got[2], got[3])
	if err != nil {
		return rec, tenant.Tenant{}, s.fail("get "+rec.TenantID, err)
	}
	return rec, t, nil
}

// lookupThenGet is LookupKeyTenant in two round trips.
func (s *Tenants) lookupThenGet(ctx context.Context, hash string) (apikey.Record, tenant.Tenant, error) {
	rec, err := s.LookupKey(ctx, hash)
	if err != nil {
		return apikey.Record{}, tenant.Tenant{}, err
	}
	t, err := s.Get(ctx, rec.TenantID)
	return rec, t, err
}
