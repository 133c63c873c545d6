package store

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// ErrPlanInUse is matched by DeletePlan's error when a tenant names the plan: a
// *PlanInUseError, which names one such tenant.
var ErrPlanInUse = errors.New("tenantstore: plan in use")

// PlanInUseError is DeletePlan's refusal of a plan that tenants name; Tenant is one of
// them. It matches ErrPlanInUse.
type PlanInUseError struct {
	Plan, Tenant string
}

// Error describes the error.
func (e *PlanInUseError) Error() string {
	return "tenantstore: plan " + strconv.Quote(e.Plan) + " is in use by tenant " + strconv.Quote(e.Tenant)
}

// Is makes errors.Is(err, ErrPlanInUse) true.
func (e *PlanInUseError) Is(target error) bool { return target == ErrPlanInUse }

// Plans keeps the plans tenants name (tenant.Plan). Each store's Tenants implements
// it beside Tenants, in the same storage, so that the two checks that tie tenants to
// plans are made atomically with the write they guard: Tenants.Create and Replace
// refuse a tenant that names a plan that does not exist (tenant.UnknownPlan, a
// *limiter.FieldError for "plan"), and DeletePlan refuses a plan that a tenant names.
// Versions, conditions and listing work as the Tenants methods of the same name do.
type Plans interface {
	// CreatePlan stores a new plan with version 1 and returns it as stored: ErrExists
	// when the id is taken, or the plan's validation error.
	CreatePlan(ctx context.Context, p tenant.Plan) (tenant.Plan, error)
	// GetPlan returns the plan, or ErrNotFound.
	GetPlan(ctx context.Context, id string) (tenant.Plan, error)
	// ReplacePlan stores p in place of the plan with the same id when its stored
	// version is ifVersion, with version ifVersion+1: ErrNotFound, ErrVersionConflict,
	// or the plan's validation error.
	ReplacePlan(ctx context.Context, p tenant.Plan, ifVersion int64) (tenant.Plan, error)
	// DeletePlan removes the plan when its stored version is ifVersion and no tenant
	// names it: ErrNotFound, ErrVersionConflict, or a *PlanInUseError.
	DeletePlan(ctx context.Context, id string, ifVersion int64) error
	// ListPlans returns up to limit plans in a stable order (see the implementation),
	// and the next page's token, as Tenants.List does.
	ListPlans(ctx context.Context, limit int, pageToken string) ([]tenant.Plan, string, error)
}

// PreparePlan validates p and returns it normalized with version ifVersion+1, as
// CreatePlan (ifVersion 0) and ReplacePlan store it.
func PreparePlan(p tenant.Plan, ifVersion int64) (tenant.Plan, error) {
	p = p.Normalized()
	p.Version = ifVersion + 1
	if err := p.Validate(); err != nil {
		return tenant.Plan{}, err
	}
	return p, nil
}

// EncodePlan returns the plan that PreparePlan made, with the JSON a shared store
// keeps of it; PreparePlan's error passes through.
func EncodePlan(p tenant.Plan, err error) (tenant.Plan, []byte, error) { return encode(p, err) }

// encode returns v with its JSON, or err.
func encode[T any](v T, err error) (T, []byte, error) {
	var zero T
	if err != nil {
		return zero, nil, err
	}
	doc, err := json.Marshal(v)
	if err != nil {
		return zero, nil, err
	}
	return v, doc, nil
}
