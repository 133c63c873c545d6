package luascript

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// readKeys reads the tenant's version, keyrev and key records in one transaction.
func (s *Tenants) readKeys(ctx context.Context, id string) (KeyState, error) {
	if !tenant.ValidID(id) {
		return KeyState{}, store.ErrNotFound
	}
	st, err := s.c.KeyState(ctx, s.l.Tenant(id), s.l.Keys(id))
	if err != nil {
		return KeyState{}, s.fail("read the keys of "+id, err)
	}
	if !st.Found {
		return KeyState{}, store.ErrNotFound
	}
	return st, nil
}

// Delete removes the tenant and its keys in one script, conditioned on the version,
// on the keyrev read with the keys and on the plan read with the tenant, which the
// tenant leaves.
func (s *Tenants) Delete(ctx context.Context, id string, ifVersion int64) error {
	for range maxAttempts {
		st, err := s.readKeys(ctx, id)
		if err != nil {
			return err
		}
		if st.Version != strconv.FormatInt(ifVersion, 10) {
			return store.ErrVersionConflict
		}
		t, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		keys, err := s.l.DeleteKeys(id, t.Plan, st.Keys)
		if err != nil {
			return err
		}
		if err := s.run(ctx, deleteScript, keys, st.Version, st.Keyrev, id, t.Plan); err != ErrRetry {
			return s.fail("delete "+id, err)
		}
	}
	return ErrBusy
}

// PutKey stores a new key record and lists it on its tenant in one script.
func (s *Tenants) PutKey(ctx context.Context, rec apikey.Record) error {
	if err := store.CheckRecord(rec); err != nil {
		return err
	}
	doc, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	err = s.run(ctx, putKeyScript, s.l.KeyKeys(rec.TenantID, rec.Hash), rec.KeyID, string(doc), strconv.Itoa(store.MaxKeysPerTenant))
	return s.fail("put key "+rec.KeyID, err)
}

// LookupKey reads the key record by hash.
func (s *Tenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, store.ErrNotFound
	}
	doc, ok, err := s.c.Get(ctx, s.l.Record(hash))
	if err != nil {
		return apikey.Record{}, s.fail("lookup key", err)
	}
	if !ok {
		return apikey.Record{}, store.ErrNotFound
	}
	return store.DecodeLookup(doc, hash)
}

// ListKeys reads the tenant's hash of keys.
func (s *Tenants) ListKeys(ctx context.Context, tenantID string) ([]apikey.Record, error) {
	st, err := s.readKeys(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return store.DecodeRecords(st.Keys)
}

// RevokeKey rewrites the record, when it is still the one read.
func (s *Tenants) RevokeKey(ctx context.Context, tenantID, keyID string, at int64) error {
	return s.changeKey(ctx, tenantID, keyID, func(rec apikey.Record) (string, bool, error) {
		if rec.Revoked {
			return "", false, nil
		}
		doc, err := json.Marshal(rec.Revoke(at))
		return string(doc), true, err
	})
}

// DeleteKey deletes the record, when it is still the one read.
func (s *Tenants) DeleteKey(ctx context.Context, tenantID, keyID string) error {
	return s.changeKey(ctx, tenantID, keyID, func(apikey.Record) (string, bool, error) { return "", true, nil })
}

// changeKey reads the tenant's record of keyID, asks plan for its new JSON ("" to
// delete it; change false: nothing to do) and writes it with changekey.lua, reading
// again when the record changed in between.
func (s *Tenants) changeKey(ctx context.Context, tenantID, keyID string, plan func(apikey.Record) (doc string, change bool, err error)) error {
	if !apikey.ValidKeyID(keyID) {
		return store.ErrNotFound
	}
	for range maxAttempts {
		st, err := s.readKeys(ctx, tenantID)
		if err != nil {
			return err
		}
		rec, old, err := store.FindRecord(st.Keys, keyID)
		if err != nil {
			return err
		}
		doc, change, err := plan(rec)
		if err != nil || !change {
			return err
		}
		if err := s.run(ctx, changeKeyScript, s.l.KeyKeys(tenantID, rec.Hash), keyID, old, doc); err != ErrRetry {
			return s.fail("change key "+keyID, err)
		}
	}
	return ErrBusy
}
