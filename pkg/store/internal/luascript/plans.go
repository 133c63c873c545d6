package luascript

import (
	"context"
	"errors"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// A plan is a hash (doc, version) like a tenant's, listed in a sorted set of plan ids;
// the tenants that name it are the members of its sorted set of users, which
// create.lua, replace.lua and delete.lua keep in the same script that writes the
// tenant. deleteplan.lua refuses a plan with users, in one script too: no window
// lets a tenant name a plan that is gone.

// CreatePlan stores a new plan with version 1: createplan.lua.
func (s *Tenants) CreatePlan(ctx context.Context, p tenant.Plan) (tenant.Plan, error) {
	p, doc, err := store.EncodePlan(store.PreparePlan(p, 0))
	if err != nil {
		return tenant.Plan{}, err
	}
	if err := s.run(ctx, createPlanScript, []string{s.l.Plan(p.ID), s.l.PlanIDs()}, string(doc), p.ID); err != nil {
		return tenant.Plan{}, s.fail("create plan "+p.ID, err)
	}
	return p, nil
}

// GetPlan returns the plan: one HMGET.
func (s *Tenants) GetPlan(ctx context.Context, id string) (tenant.Plan, error) {
	return get(s, ctx, "get plan", id, s.l.Plan, DecodePlan)
}

// ReplacePlan stores p when the stored version is ifVersion: replaceplan.lua.
func (s *Tenants) ReplacePlan(ctx context.Context, p tenant.Plan, ifVersion int64) (tenant.Plan, error) {
	p, doc, err := store.EncodePlan(store.PreparePlan(p, ifVersion))
	if err != nil {
		return tenant.Plan{}, err
	}
	err = s.run(ctx, replacePlanScript, []string{s.l.Plan(p.ID)}, strconv.FormatInt(ifVersion, 10), strconv.FormatInt(p.Version, 10), string(doc))
	if err != nil {
		return tenant.Plan{}, s.fail("replace plan "+p.ID, err)
	}
	return p, nil
}

// DeletePlan removes the plan when the stored version is ifVersion and no tenant names
// it: deleteplan.lua. The tenant named in a refusal is the first of the plan's users,
// read after the script.
func (s *Tenants) DeletePlan(ctx context.Context, id string, ifVersion int64) error {
	if !tenant.ValidID(id) {
		return store.ErrNotFound
	}
	keys := []string{s.l.Plan(id), s.l.PlanIDs(), s.l.PlanUsers(id)}
	err := s.run(ctx, deletePlanScript, keys, strconv.FormatInt(ifVersion, 10), id)
	if !errors.Is(err, errPlanInUse) {
		return s.fail("delete plan "+id, err)
	}
	users, err := s.c.RangeByLex(ctx, s.l.PlanUsers(id), "-", 1)
	if err != nil {
		return s.fail("delete plan "+id, err)
	}
	inUse := &store.PlanInUseError{Plan: id}
	if len(users) > 0 {
		inUse.Tenant = users[0]
	}
	return inUse
}

// ListPlans returns plans in order of id, as List returns tenants.
func (s *Tenants) ListPlans(ctx context.Context, limit int, pageToken string) ([]tenant.Plan, string, error) {
	return list(s, ctx, s.l.PlanIDs(), limit, pageToken, s.l.Plan, DecodePlan)
}
