package storetest

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// testKeyTenant checks, on a store that offers store.KeyTenantLookup, that
// LookupKeyTenant answers what LookupKey then Get answer: for a key found, unknown,
// malformed or revoked, a key whose tenant was deleted with it, and (with
// TenantsConfig.DropTenant) a key whose tenant alone is gone.
func testKeyTenant(t *testing.T, cfg TenantsConfig) {
	s := cfg.New(t)
	both, ok := s.(store.KeyTenantLookup)
	if !ok {
		t.Skip("the store does not offer store.KeyTenantLookup")
	}
	mustCreate(t, s, Tenant("acme"))
	mustCreate(t, s, Tenant("gone"))
	mustCreate(t, s, Tenant("orphan"))
	found, _ := mustPutKey(t, s, "acme", created)
	revoked, rec := mustPutKey(t, s, "acme", created)
	if err := s.RevokeKey(t.Context(), "acme", rec.KeyID, created+1); err != nil {
		t.Fatal(err)
	}
	deleted, _ := mustPutKey(t, s, "gone", created)
	if err := s.Delete(t.Context(), "gone", 1); err != nil {
		t.Fatal(err)
	}
	hashes := map[string]string{
		"found":                         found.Hash(),
		"revoked":                       revoked.Hash(),
		"unknown":                       apikey.New().Hash(),
		"malformed: upper case":         strings.ToUpper(found.Hash()),
		"malformed: short":              found.Hash()[:63],
		"malformed: empty":              "",
		"malformed: the raw key":        found.Reveal(),
		"tenant deleted, with its keys": deleted.Hash(),
	}
	if cfg.DropTenant != nil {
		orphan, _ := mustPutKey(t, s, "orphan", created)
		cfg.DropTenant(t, s, "orphan")
		if _, err := s.LookupKey(t.Context(), orphan.Hash()); err != nil {
			t.Fatalf("DropTenant took the key record too: %v", err)
		}
		hashes["tenant gone, its key kept"] = orphan.Hash()
	}
	for name, hash := range hashes {
		wantRec, wantT, wantErr := lookupThenGet(t, s, hash)
		rec, ten, err := both.LookupKeyTenant(t.Context(), hash)
		if rec != wantRec || !reflect.DeepEqual(ten, wantT) || errorClass(err) != errorClass(wantErr) {
			t.Errorf("%s: LookupKeyTenant = %+v, %+v, %v; LookupKey then Get = %+v, %+v, %v",
				name, rec, ten, err, wantRec, wantT, wantErr)
		}
	}
}

// lookupThenGet answers as store.KeyTenantLookup documents, with two reads.
func lookupThenGet(t *testing.T, s store.Tenants, hash string) (apikey.Record, tenant.Tenant, error) {
	rec, err := s.LookupKey(t.Context(), hash)
	if err != nil {
		return rec, tenant.Tenant{}, err
	}
	ten, err := s.Get(t.Context(), rec.TenantID)
	return rec, ten, err
}

// errorClass names what an error of a tenant store means.
func errorClass(err error) string {
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, store.ErrRevoked):
		return "revoked"
	case errors.Is(err, store.ErrNotFound):
		return "not found"
	}
	return "failure: " + err.Error()
}
