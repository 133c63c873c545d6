package admin

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// The operations of the audit trail on plans.
const (
	OpPlanCreate  = "plan.create"  // PUT /plans/{id} without If-Match
	OpPlanReplace = "plan.replace" // PUT /plans/{id} with If-Match
	OpPlanDelete  = "plan.delete"  // DELETE /plans/{id}
)

// planList is the body of GET /plans.
type planList struct {
	Plans         []tenant.Plan `json:"plans"`
	NextPageToken *string       `json:"next_page_token"` // null after the last page
}

// getPlan answers GET /plans/{id}: the plan, with its version as ETag.
func (h *Handler) getPlan(w http.ResponseWriter, r *http.Request, p params) error {
	pl, err := h.loadPlan(r.Context(), p.id)
	if err != nil {
		return err
	}
	writePlan(w, http.StatusOK, pl)
	return nil
}

// putPlan answers PUT /plans/{id}: create without If-Match (409 when it exists),
// replace with it (412 when it does not match), as PUT /tenants/{id} does.
func (h *Handler) putPlan(w http.ResponseWriter, r *http.Request, p params) error {
	body, err := readBody(r, jsonType)
	if err != nil {
		return err
	}
	pl, err := h.decodePlan(body, p.id)
	if err != nil {
		return err
	}
	m, err := parseIfMatch(r.Header)
	if err != nil {
		return err
	}
	plans, err := h.planStore()
	if err != nil {
		return err
	}
	if !m.present {
		stored, err := plans.CreatePlan(r.Context(), pl)
		if errors.Is(err, store.ErrExists) {
			return newError(problemExists, "plan "+strconv.Quote(pl.ID)+" exists: to replace it, send If-Match with its ETag (or \"*\")")
		}
		if err != nil {
			return storeError(err)
		}
		h.auditPlan(r.Context(), OpPlanCreate, tenant.Plan{}, stored)
		writePlan(w, http.StatusCreated, stored)
		return nil
	}
	return h.replacePlan(w, r.Context(), m, pl)
}

// replacePlan replaces the stored plan with pl when m matches its version; a plan
// that holds what is stored is not written.
func (h *Handler) replacePlan(w http.ResponseWriter, ctx context.Context, m ifMatch, pl tenant.Plan) error {
	old, err := h.loadPlan(ctx, pl.ID) // 404 when it does not exist, If-Match or not
	if err != nil {
		return err
	}
	if err := precondition(m, old.Version, true); err != nil {
		return err
	}
	if pl.Version = old.Version; sameJSON(old.Normalized(), pl) {
		writePlan(w, http.StatusOK, old)
		return nil
	}
	stored, err := h.plans.ReplacePlan(ctx, pl, old.Version)
	if err != nil {
		return conditionalError(err, planNotFound(pl.ID))
	}
	h.auditPlan(ctx, OpPlanReplace, old, stored)
	writePlan(w, http.StatusOK, stored)
	return nil
}

// deletePlan answers DELETE /plans/{id}, under If-Match: 409 naming a tenant while
// tenants name the plan.
func (h *Handler) deletePlan(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := parseIfMatch(r.Header)
	if err != nil {
		return err
	}
	old, err := h.loadPlan(r.Context(), p.id)
	if err != nil {
		return err
	}
	if err := precondition(m, old.Version, true); err != nil {
		return err
	}
	err = h.plans.DeletePlan(r.Context(), p.id, old.Version)
	if inUse, ok := errors.AsType[*store.PlanInUseError](err); ok {
		return &apiError{slug: problemPlanInUse, field: "id", value: strconv.Quote(p.id),
			detail: "plan " + strconv.Quote(p.id) + " is in use by tenant " + strconv.Quote(inUse.Tenant) + ": move its tenants to another plan first"}
	}
	if err != nil {
		return conditionalError(err, planNotFound(p.id))
	}
	h.auditPlan(r.Context(), OpPlanDelete, old, tenant.Plan{})
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listPlans answers GET /plans?limit=&page_token=.
func (h *Handler) listPlans(w http.ResponseWriter, r *http.Request, p params) error {
	plans, err := h.planStore()
	if err != nil {
		return err
	}
	ps, next, err := listPage(r.Context(), p.query, plans.ListPlans)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, planList{Plans: ps, NextPageToken: next})
	return nil
}

// decodePlan decodes a PUT body: a plan whose id, when given, is the path's; its
// version is ignored. Its routes' resources must be API Gateway's
// (tenant.Plan.CheckResources), and the counter store must honour every rule
// (store.RuleChecker).
func (h *Handler) decodePlan(body []byte, id string) (tenant.Plan, error) {
	fields, err := objectFields(body, id, "plan")
	if err != nil {
		return tenant.Plan{}, err
	}
	if fields != nil {
		delete(fields, "version")
		body, _ = json.Marshal(fields)
	}
	p, err := tenant.DecodePlan(body)
	if err == nil {
		err = p.CheckResources()
	}
	if err == nil {
		err = p.CheckRules(h.honours)
	}
	if err != nil {
		return tenant.Plan{}, validationError(err)
	}
	return p, nil
}

// planStore returns the store's plans: 500 for a tenant store that keeps none (every
// store.Tenants of pkg/store keeps them).
func (h *Handler) planStore() (store.Plans, error) {
	if h.plans == nil {
		return nil, &apiError{slug: problemInternal, detail: "this tenant store keeps no plans"}
	}
	return h.plans, nil
}

// loadPlan reads the plan: a 404 problem when there is none.
func (h *Handler) loadPlan(ctx context.Context, id string) (tenant.Plan, error) {
	plans, err := h.planStore()
	if err != nil {
		return tenant.Plan{}, err
	}
	return load(ctx, id, plans.GetPlan, planNotFound)
}

func planNotFound(id string) *apiError {
	return &apiError{slug: problemNotFound, detail: "no plan " + strconv.Quote(id), cause: store.ErrNotFound}
}

// writePlan writes p with its ETag.
func writePlan(w http.ResponseWriter, status int, p tenant.Plan) {
	w.Header().Set("ETag", etag(p.Version))
	writeJSON(w, status, p)
}

// auditPlan writes the record of a plan write, as audit does for tenants.
func (h *Handler) auditPlan(ctx context.Context, op string, old, next tenant.Plan) {
	h.auditWrite(ctx, op, slog.String("plan", cmp.Or(next.ID, old.ID)), old.Version, next.Version, old, next)
}

// planOf reads the plan t names (nil when it names none): 422 naming plan when there
// is no such plan. The store checks again that the plan exists, in the write itself.
func (h *Handler) planOf(ctx context.Context, t tenant.Tenant) (*tenant.Plan, error) {
	if t.Plan == "" {
		return nil, nil
	}
	if h.plans == nil {
		return nil, fieldError("plan", strconv.Quote(t.Plan), "this tenant store keeps no plans")
	}
	p, err := h.plans.GetPlan(ctx, t.Plan)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, validationError(tenant.UnknownPlan(t.Plan))
	case err != nil:
		return nil, storeError(err)
	}
	return &p, nil
}

// effective returns t as the requests of a key with the own rules keyRules (nil for
// none) are limited at now: merged with its plan, those rules and its overrides active
// at now (tenant.Tenant.EffectiveFor).
func (h *Handler) effective(ctx context.Context, t tenant.Tenant, keyRules []limiter.Rule, now int64) (tenant.Tenant, error) {
	if t.Plan == "" {
		return t.EffectiveFor(nil, keyRules, now), nil
	}
	p, err := h.loadPlan(ctx, t.Plan)
	if err != nil {
		return tenant.Tenant{}, err
	}
	return t.EffectiveFor(&p, keyRules, now), nil
}
