package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var (
	_ store.Tenants = (*Tenants)(nil)
	_ store.Plans   = (*Tenants)(nil)
)

// Tenants is the in-memory store.Tenants and store.Plans. The zero value is not usable:
// create it with NewTenants. It is safe for concurrent use: one lock guards tenants and
// plans, so a tenant's plan is checked and a plan's users counted under the write they
// guard.
type Tenants struct {
	mu      sync.RWMutex
	tenants map[string]*tenantEntry
	ids     []string                 // the tenant ids, sorted
	byHash  map[string]apikey.Record // every key record, by hash
	plans   plans
}

// tenantEntry is one tenant and the hashes of its keys by key id.
type tenantEntry struct {
	t    tenant.Tenant
	keys map[string]string
}

// NewTenants returns an empty Tenants.
func NewTenants() *Tenants {
	return &Tenants{tenants: map[string]*tenantEntry{}, byHash: map[string]apikey.Record{}, plans: newPlans()}
}

// Create stores a new tenant with version 1.
func (s *Tenants) Create(_ context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, err := store.PrepareCreate(t)
	if err != nil {
		return tenant.Tenant{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tenants[t.ID] != nil {
		return tenant.Tenant{}, store.ErrExists
	}
	if err := s.plans.use(t.ID, "", t.Plan); err != nil {
		return tenant.Tenant{}, err
	}
	s.tenants[t.ID] = &tenantEntry{t: t.Clone(), keys: map[string]string{}}
	i, _ := slices.BinarySearch(s.ids, t.ID)
	s.ids = slices.Insert(s.ids, i, t.ID)
	return t, nil
}

// Get returns the tenant.
func (s *Tenants) Get(_ context.Context, id string) (tenant.Tenant, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.tenants[id]
	if e == nil {
		return tenant.Tenant{}, store.ErrNotFound
	}
	return e.t.Clone(), nil
}

// Replace stores t when the stored version is ifVersion.
func (s *Tenants) Replace(_ context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, err := store.PrepareReplace(t, ifVersion)
	if err != nil {
		return tenant.Tenant{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tenants[t.ID]
	switch {
	case e == nil:
		return tenant.Tenant{}, store.ErrNotFound
	case e.t.Version != ifVersion:
		return tenant.Tenant{}, store.ErrVersionConflict
	}
	if err := s.plans.use(t.ID, e.t.Plan, t.Plan); err != nil {
		return tenant.Tenant{}, err
	}
	e.t = t.Clone()
	return t, nil
}

// Delete removes the tenant and its keys when the stored version is ifVersion.
func (s *Tenants) Delete(_ context.Context, id string, ifVersion int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.tenants[id]
	switch {
	case e == nil:
		return store.ErrNotFound
	case e.t.Version != ifVersion:
		return store.ErrVersionConflict
	}
	for _, hash := range e.keys {
		delete(s.byHash, hash)
	}
	s.plans.use(id, e.t.Plan, "") // leaving a plan cannot fail
	delete(s.tenants, id)
	if i, ok := slices.BinarySearch(s.ids, id); ok {
		s.ids = slices.Delete(s.ids, i, i+1)
	}
	return nil
}

// List returns tenants in order of id.
func (s *Tenants) List(_ context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return page(s.ids, limit, pageToken, func(id string) tenant.Tenant { return s.tenants[id].t.Clone() })
}
