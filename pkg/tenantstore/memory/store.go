package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/tenant"
	"github.com/edgelimit/edgelimit/pkg/tenantstore"
)

var _ tenantstore.Store = (*Store)(nil)

// Store is the in-memory tenantstore.Store. The zero value is not usable: create it with
// New. It is safe for concurrent use.
type Store struct {
	mu      sync.RWMutex
	tenants map[string]*entry
	ids     []string                 // the tenant ids, sorted
	byHash  map[string]apikey.Record // every key record, by hash
}

// entry is one tenant and the hashes of its keys by key id.
type entry struct {
	t    tenant.Tenant
	keys map[string]string
}

// New returns an empty Store.
func New() *Store {
	return &Store{tenants: map[string]*entry{}, byHash: map[string]apikey.Record{}}
}

// Create stores a new tenant with version 1.
func (s *Store) Create(_ context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, err := tenantstore.PrepareCreate(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tenants[t.ID] != nil {
		return tenant.Tenant{}, tenantstore.ErrExists
	}
	s.tenants[t.ID] = &entry{t: t.Clone(), keys: map[string]string{}}
	i, _ := slices.BinarySearch(s.ids, t.ID)
	s.ids = slices.Insert(s.ids, i, t.ID)
	return t, nil
}

// Get returns the tenant.
func (s *Store) Get(_ context.Context, id string) (tenant.Tenant, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.tenants[id]
	if e == nil {
		return tenant.Tenant{}, tenantstore.ErrNotFound
	}
	return e.t.Clone(), nil
}

// Replace stores t when the stored version is ifVersion.
func (s *Store) Replace(_ context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, err := tenantstore.PrepareReplace(t, ifVersion)
	if err != nil {
		return tenant.Tenant{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tenants[t.ID]
	switch {
	case e == nil:
		return tenant.Tenant{}, tenantstore.ErrNotFound
	case e.t.Version != ifVersion:
		return tenant.Tenant{}, tenantstore.ErrVersionConflict
	}
	e.t = t.Clone()
	return t, nil
}

// Delete removes the tenant and its keys when the stored version is ifVersion.
func (s *Store) Delete(_ context.Context, id string, ifVersion int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tenants[id]
	switch {
	case e == nil:
		return tenantstore.ErrNotFound
	case e.t.Version != ifVersion:
		return tenantstore.ErrVersionConflict
	}
	for _, hash := range e.keys {
		delete(s.byHash, hash)
	}
	delete(s.tenants, id)
	if i, ok := slices.BinarySearch(s.ids, id); ok {
		s.ids = slices.Delete(s.ids, i, i+1)
	}
	return nil
}

// List returns tenants in order of id.
func (s *Store) List(_ context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error) {
	after, err := tenantstore.ParsePageToken(pageToken)
	if err != nil {
		return nil, "", err
	}
	limit = tenantstore.ListLimit(limit)
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := 0
	if after != "" {
		i, _ = slices.BinarySearch(s.ids, after+"\x00") // the first id after it
	}
	out := make([]tenant.Tenant, 0, min(limit, len(s.ids)-i))
	for ; i < len(s.ids) && len(out) < limit; i++ {
		out = append(out, s.tenants[s.ids[i]].t.Clone())
	}
	next := ""
	if i < len(s.ids) {
		next = tenantstore.PageToken(out[len(out)-1].ID)
	}
	return out, next, nil
}
