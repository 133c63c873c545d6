package upstash

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
	"github.com/edgelimit/edgelimit/pkg/upstashrest"
)

// keyState is a tenant's version, keyrev and keys (key id -> record JSON), read in
// one transaction.
type keyState struct {
	version, keyrev string
	keys            map[string]string
}

func (s *Tenants) readKeys(ctx context.Context, id string) (keyState, error) {
	if !tenant.ValidID(id) {
		return keyState{}, store.ErrNotFound
	}
	results, err := s.c.MultiExec(ctx, [][]any{
		{"HMGET", s.tenantKey(id), "version", "keyrev"},
		{"HGETALL", s.keysKey(id)},
	})
	if err != nil {
		return keyState{}, fmt.Errorf("tenantstore/upstash: read keys of %s: %w", id, err)
	}
	for _, res := range results {
		if res.Err != nil {
			return keyState{}, fmt.Errorf("tenantstore/upstash: read keys of %s: %w", id, res.Err)
		}
	}
	head, err := stringsOf(results[0].Reply, true)
	if err != nil || len(head) != 2 {
		return keyState{}, fmt.Errorf("tenantstore/upstash: read keys of %s: %v: %w", id, results[0].Reply, upstashrest.ErrMalformedReply)
	}
	if head[0] == "" {
		return keyState{}, store.ErrNotFound
	}
	flat, err := stringsOf(results[1].Reply, false)
	if err != nil || len(flat)%2 != 0 {
		return keyState{}, fmt.Errorf("tenantstore/upstash: read keys of %s: %w", id, upstashrest.ErrMalformedReply)
	}
	st := keyState{version: head[0], keyrev: head[1], keys: make(map[string]string, len(flat)/2)}
	for i := 0; i < len(flat); i += 2 {
		st.keys[flat[i]] = flat[i+1]
	}
	return st, nil
}

// stringsOf returns an array reply of strings; with nils, a nil element gives "".
func stringsOf(r upstashrest.Reply, nils bool) ([]string, error) {
	elems, err := r.Array()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if nils && e.IsNil() {
			continue
		}
		if out[i], err = e.String(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Delete removes the tenant and its keys in one script, conditioned on the version
// and on the keyrev read with the keys.
func (s *Tenants) Delete(ctx context.Context, id string, ifVersion int64) error {
	for range maxAttempts {
		st, err := s.readKeys(ctx, id)
		if err != nil {
			return err
		}
		if st.version != strconv.FormatInt(ifVersion, 10) {
			return store.ErrVersionConflict
		}
		keys := []string{s.tenantKey(id), s.idsKey(), s.keysKey(id)}
		for _, doc := range st.keys {
			rec, err := store.DecodeRecord(doc)
			if err != nil {
				return err
			}
			keys = append(keys, s.recordKey(rec.Hash))
		}
		code, err := s.eval(ctx, deleteScript, keys, st.version, st.keyrev, id)
		switch {
		case err != nil:
			return fmt.Errorf("tenantstore/upstash: delete %s: %w", id, err)
		case code == -1:
			return store.ErrNotFound
		case code == -2:
			return store.ErrVersionConflict
		case code == 1:
			return nil
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
	keys := []string{s.tenantKey(rec.TenantID), s.keysKey(rec.TenantID), s.recordKey(rec.Hash)}
	code, err := s.eval(ctx, putKeyScript, keys, rec.KeyID, string(doc), store.MaxKeysPerTenant)
	switch {
	case err != nil:
		return fmt.Errorf("tenantstore/upstash: put key %s: %w", rec.KeyID, err)
	case code == -1:
		return store.ErrNotFound
	case code == -2:
		return store.ErrExists
	case code == -3:
		return store.ErrTooManyKeys
	}
	return nil
}

// LookupKey reads the key record by hash.
func (s *Tenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, store.ErrNotFound
	}
	r, err := s.c.Do(ctx, "GET", s.recordKey(hash))
	if err != nil {
		return apikey.Record{}, fmt.Errorf("tenantstore/upstash: lookup key: %w", err)
	}
	if r.IsNil() {
		return apikey.Record{}, store.ErrNotFound
	}
	doc, err := r.String()
	if err != nil {
		return apikey.Record{}, fmt.Errorf("tenantstore/upstash: lookup key: %w", err)
	}
	rec, err := store.DecodeRecord(doc)
	if err != nil {
		return apikey.Record{}, err
	}
	return store.FinishLookup(rec, hash)
}

// ListKeys reads the tenant's hash of keys.
func (s *Tenants) ListKeys(ctx context.Context, tenantID string) ([]apikey.Record, error) {
	st, err := s.readKeys(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return store.DecodeRecords(st.keys)
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
		old, ok := st.keys[keyID]
		if !ok {
			return store.ErrNotFound
		}
		rec, err := store.DecodeRecord(old)
		if err != nil {
			return err
		}
		doc, change, err := plan(rec)
		if err != nil || !change {
			return err
		}
		keys := []string{s.tenantKey(tenantID), s.keysKey(tenantID), s.recordKey(rec.Hash)}
		code, err := s.eval(ctx, changeKeyScript, keys, keyID, old, doc)
		switch {
		case err != nil:
			return fmt.Errorf("tenantstore/upstash: change key %s: %w", keyID, err)
		case code == -1:
			return store.ErrNotFound
		case code == 1:
			return nil
		}
	}
	return ErrBusy
}
