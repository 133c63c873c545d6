package memory

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// PutKey stores a new key record for an existing tenant.
func (s *Tenants) PutKey(_ context.Context, rec apikey.Record) error {
	if err := store.CheckRecord(rec); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tenants[rec.TenantID]
	switch {
	case e == nil:
		return store.ErrNotFound
	case e.keys[rec.KeyID] != "":
		return store.ErrExists
	case len(e.keys) >= store.MaxKeysPerTenant:
		return store.ErrTooManyKeys
	}
	if _, taken := s.byHash[rec.Hash]; taken {
		return store.ErrExists
	}
	e.keys[rec.KeyID] = rec.Hash
	s.byHash[rec.Hash] = rec
	return nil
}

// LookupKey returns the record of the key with hash; see store.Tenants.
func (s *Tenants) LookupKey(_ context.Context, hash string) (apikey.Record, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, store.ErrNotFound
	}
	s.mu.RLock()
	rec, ok := s.byHash[hash]
	s.mu.RUnlock()
	if !ok {
		return apikey.Record{}, store.ErrNotFound
	}
	return store.FinishLookup(rec, hash)
}

// ListKeys returns the tenant's key records in order of creation.
func (s *Tenants) ListKeys(_ context.Context, tenantID string) ([]apikey.Record, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.tenants[tenantID]
	if e == nil {
		return nil, store.ErrNotFound
	}
	out := make([]apikey.Record, 0, len(e.keys))
	for _, hash := range e.keys {
		out = append(out, s.byHash[hash])
	}
	store.SortKeys(out)
	return out, nil
}

// RevokeKey marks the tenant's key revoked at at.
func (s *Tenants) RevokeKey(_ context.Context, tenantID, keyID string, at int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	hash, err := s.keyHash(tenantID, keyID)
	if err != nil {
		return err
	}
	s.byHash[hash] = s.byHash[hash].Revoke(at)
	return nil
}

// DeleteKey removes the tenant's key record.
func (s *Tenants) DeleteKey(_ context.Context, tenantID, keyID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	hash, err := s.keyHash(tenantID, keyID)
	if err != nil {
		return err
	}
	delete(s.byHash, hash)
	delete(s.tenants[tenantID].keys, keyID)
	return nil
}

// keyHash returns the hash of the tenant's key keyID. The caller holds s.mu.
func (s *Tenants) keyHash(tenantID, keyID string) (string, error) {
	e := s.tenants[tenantID]
	if e == nil || e.keys[keyID] == "" {
		return "", store.ErrNotFound
	}
	return e.keys[keyID], nil
}
