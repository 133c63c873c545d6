package memory

import (
	"context"
	"maps"
	"slices"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// plans is the plans of a Tenants and the tenants on each, guarded by the Tenants'
// lock.
type plans struct {
	byID  map[string]tenant.Plan
	ids   []string                   // sorted
	users map[string]map[string]bool // plan id -> the ids of the tenants that name it
}

func newPlans() plans {
	return plans{byID: map[string]tenant.Plan{}, users: map[string]map[string]bool{}}
}

// use moves tenant id from plan from to plan to ("" for none): tenant.UnknownPlan when
// to does not exist, and then nothing changes.
func (ps *plans) use(id, from, to string) error {
	if to != "" {
		if _, ok := ps.byID[to]; !ok {
			return tenant.UnknownPlan(to)
		}
	}
	if from != "" {
		delete(ps.users[from], id)
	}
	if to != "" {
		if ps.users[to] == nil {
			ps.users[to] = map[string]bool{}
		}
		ps.users[to][id] = true
	}
	return nil
}

// CreatePlan stores a new plan with version 1.
func (s *Tenants) CreatePlan(_ context.Context, p tenant.Plan) (tenant.Plan, error) {
	p, err := store.PreparePlan(p, 0)
	if err != nil {
		return tenant.Plan{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.plans.byID[p.ID]; ok {
		return tenant.Plan{}, store.ErrExists
	}
	s.plans.byID[p.ID] = p.Clone()
	i, _ := slices.BinarySearch(s.plans.ids, p.ID)
	s.plans.ids = slices.Insert(s.plans.ids, i, p.ID)
	return p, nil
}

// GetPlan returns the plan.
func (s *Tenants) GetPlan(_ context.Context, id string) (tenant.Plan, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.plans.byID[id]
	if !ok {
		return tenant.Plan{}, store.ErrNotFound
	}
	return p.Clone(), nil
}

// ReplacePlan stores p when the stored version is ifVersion.
func (s *Tenants) ReplacePlan(_ context.Context, p tenant.Plan, ifVersion int64) (tenant.Plan, error) {
	p, err := store.PreparePlan(p, ifVersion)
	if err != nil {
		return tenant.Plan{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.plans.byID[p.ID]
	switch {
	case !ok:
		return tenant.Plan{}, store.ErrNotFound
	case old.Version != ifVersion:
		return tenant.Plan{}, store.ErrVersionConflict
	}
	s.plans.byID[p.ID] = p.Clone()
	return p, nil
}

// DeletePlan removes the plan when the stored version is ifVersion and no tenant names
// it (the smallest such tenant id is named).
func (s *Tenants) DeletePlan(_ context.Context, id string, ifVersion int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.plans.byID[id]
	switch {
	case !ok:
		return store.ErrNotFound
	case old.Version != ifVersion:
		return store.ErrVersionConflict
	}
	if users := s.plans.users[id]; len(users) > 0 {
		return &store.PlanInUseError{Plan: id, Tenant: slices.Min(slices.Collect(maps.Keys(users)))}
	}
	delete(s.plans.byID, id)
	delete(s.plans.users, id)
	if i, ok := slices.BinarySearch(s.plans.ids, id); ok {
		s.plans.ids = slices.Delete(s.plans.ids, i, i+1)
	}
	return nil
}

// ListPlans returns plans in order of id.
func (s *Tenants) ListPlans(_ context.Context, limit int, pageToken string) ([]tenant.Plan, string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return page(s.plans.ids, limit, pageToken, func(id string) tenant.Plan { return s.plans.byID[id].Clone() })
}
