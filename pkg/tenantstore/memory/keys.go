package memory

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/tenantstore"
)

// PutKey stores a new key record for an existing tenant.
func (s *Store) PutKey(_ context.Context, rec apikey.Record) error {
	if err := tenantstore.CheckRecord(rec); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tenants[rec.TenantID]
	switch {
	case e == nil:
		return tenantstore.ErrNotFound
	case e.keys[rec.KeyID] != "":
		return tenantstore.ErrExists
	case len(e.keys) >= tenantstore.MaxKeysPerTenant:
		return tenantstore.ErrTooManyKeys
	}
	if _, taken := s.byHash[rec.Hash]; taken {
		return tenantstore.ErrExists
	}
	e.keys[rec.KeyID] = rec.Hash
	s.byHash[rec.Hash] = rec
	return nil
}

// LookupKey returns the record of the key with hash; see tenantstore.Store.
func (s *Store) LookupKey(_ context.Context, hash string) (apikey.Record, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, tenantstore.ErrNotFound
	}
	s.mu.RLock()
	rec, ok := s.byHash[hash]
	s.mu.RUnlock()
	if !ok {
		return apikey.Record{}, tenantstore.ErrNotFound
	}
	return tenantstore.FinishLookup(rec, hash)
}

// ListKeys returns the tenant's key records in order of creation.
func (s *Store) ListKeys(_ context.Context, tenantID string) ([]apikey.Record, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.tenants[tenantID]
	if e == nil {
		return nil, tenantstore.ErrNotFound
	}
	out := make([]apikey.Record, 0, len(e.keys))
	for _, hash := range e.keys {
		out = append(out, s.byHash[hash])
	}
	tenantstore.SortKeys(out)
	return out, nil
}

// RevokeKey marks the tenant's key revoked at at.
func (s *Store) RevokeKey(_ context.Context, tenantID, keyID string, at int64) error {
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
func (s *Store) DeleteKey(_ context.Context, tenantID, keyID string) error {
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
func (s *Store) keyHash(tenantID, keyID string) (string, error) {
	e := s.tenants[tenantID]
	if e == nil || e.keys[keyID] == "" {
		return "", tenantstore.ErrNotFound
	}
	return e.keys[keyID], nil
}
