package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// tenantList is the body of GET /tenants.
type tenantList struct {
	Tenants       []tenant.Tenant `json:"tenants"`
	NextPageToken *string         `json:"next_page_token"` // null after the last page
}

// getTenant answers GET /tenants/{id}: the tenant, with its version as ETag.
func (h *Handler) getTenant(w http.ResponseWriter, r *http.Request, p params) error {
	t, err := h.loadTenant(r.Context(), p.id)
	if err != nil {
		return err
	}
	writeTenant(w, http.StatusOK, t)
	return nil
}

// putTenant answers PUT /tenants/{id}: create without If-Match, replace with it.
func (h *Handler) putTenant(w http.ResponseWriter, r *http.Request, p params) error {
	body, err := readBody(r, jsonType)
	if err != nil {
		return err
	}
	t, err := h.decodePut(body, p.id)
	if err != nil {
		return err
	}
	m, err := parseIfMatch(r.Header)
	if err != nil {
		return err
	}
	if !m.present {
		return h.create(w, r.Context(), t)
	}
	old, err := h.loadTenant(r.Context(), p.id) // 404 when it does not exist, If-Match or not
	if err != nil {
		return err
	}
	return h.update(w, r.Context(), m, old, t)
}

func (h *Handler) create(w http.ResponseWriter, ctx context.Context, t tenant.Tenant) error {
	if err := h.checkMerge(ctx, t, nil); err != nil {
		return err
	}
	stored, err := h.tenants.Create(ctx, tenant.ApplyCreate(t))
	if errors.Is(err, store.ErrExists) {
		return newError(problemExists, "tenant "+strconv.Quote(t.ID)+" exists: to replace it, send If-Match with its ETag (or \"*\")")
	}
	if err != nil {
		return storeError(err)
	}
	h.audit(ctx, OpCreate, tenant.Tenant{}, stored)
	writeTenant(w, http.StatusCreated, stored)
	return nil
}

// update replaces old with next (a PUT body or a merge-patched tenant) when m matches
// old's version. When next holds what old holds, nothing is written: the answer is old,
// its version unchanged.
func (h *Handler) update(w http.ResponseWriter, ctx context.Context, m ifMatch, old, next tenant.Tenant) error {
	if err := precondition(m, old.Version, true); err != nil {
		return err
	}
	next, err := tenant.ApplyUpdate(old, next, h.now())
	if err != nil {
		return validationError(err)
	}
	if unchanged(old, next) {
		writeTenant(w, http.StatusOK, old)
		return nil
	}
	keys, err := h.tenants.ListKeys(ctx, old.ID)
	if err != nil {
		return storeError(err)
	}
	if err := h.checkMerge(ctx, next, keys); err != nil {
		return err
	}
	stored, err := h.tenants.Replace(ctx, next, old.Version)
	if err != nil {
		return conditionalError(err, tenantNotFound(old.ID))
	}
	h.audit(ctx, updateOp(ctx), old, stored)
	writeTenant(w, http.StatusOK, stored)
	return nil
}

// unchanged reports whether next, ready to be stored in place of old, holds what old
// holds: storing it would only bump the version. Zone changes that ApplyUpdate dropped
// because they have taken effect are no change.
func unchanged(old, next tenant.Tenant) bool {
	old = old.Normalized()
	if old.Timezone == next.Timezone {
		old.ZoneChanges = next.ZoneChanges
	}
	return sameJSON(old, next)
}

// sameJSON reports whether a and b have the same JSON.
func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// conditionalError answers a failed conditional write: notFound when the tenant or plan
// is gone, 412 when another write changed it, 503 when the store failed.
func conditionalError(err error, notFound *apiError) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notFound
	case errors.Is(err, store.ErrVersionConflict):
		return stale(0)
	}
	return storeError(err)
}

// patchTenant answers PATCH /tenants/{id}: a JSON Merge Patch, under If-Match.
func (h *Handler) patchTenant(w http.ResponseWriter, r *http.Request, p params) error {
	body, err := readBody(r, mergePatchType)
	if err != nil {
		return err
	}
	patch, err := decodePatch(body)
	if err != nil {
		return err
	}
	m, err := parseIfMatch(r.Header)
	if err != nil {
		return err
	}
	old, err := h.loadTenant(r.Context(), p.id)
	if err != nil {
		return err
	}
	if err := precondition(m, old.Version, true); err != nil {
		return err
	}
	next, err := h.applyPatch(old, patch)
	if err != nil {
		return err
	}
	return h.update(w, r.Context(), m, old, next)
}

// deleteTenant answers DELETE /tenants/{id}, under If-Match: the tenant and all its
// key records go.
func (h *Handler) deleteTenant(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := parseIfMatch(r.Header)
	if err != nil {
		return err
	}
	old, err := h.loadTenant(r.Context(), p.id)
	if err != nil {
		return err
	}
	if err := precondition(m, old.Version, true); err != nil {
		return err
	}
	if err := h.tenants.Delete(r.Context(), p.id, old.Version); err != nil {
		return conditionalError(err, tenantNotFound(p.id))
	}
	h.audit(r.Context(), OpDelete, old, tenant.Tenant{})
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listTenants answers GET /tenants?limit=&page_token=.
func (h *Handler) listTenants(w http.ResponseWriter, r *http.Request, p params) error {
	ts, next, err := listPage(r.Context(), p.query, h.tenants.List)
	if err != nil {
		return err
	}
	for i := range ts {
		ts[i] = public(ts[i])
	}
	writeJSON(w, http.StatusOK, tenantList{Tenants: ts, NextPageToken: next})
	return nil
}

// listPage reads the page that the query's limit and page_token ask for with list:
// the items (an empty slice for none, which lists as []), and the next page's token
// (nil after the last).
func listPage[T any](ctx context.Context, q map[string]string, list func(context.Context, int, string) ([]T, string, error)) ([]T, *string, error) {
	limit, err := intParam(q, "limit", 1, store.MaxListLimit, store.DefaultListLimit)
	if err != nil {
		return nil, nil, err
	}
	items, next, err := list(ctx, limit, q["page_token"])
	if errors.Is(err, store.ErrPageToken) {
		return nil, nil, paramError("page_token", "", "is not a next_page_token of this API: start again without it")
	}
	if err != nil {
		return nil, nil, storeError(err)
	}
	if items == nil {
		items = []T{}
	}
	if next == "" {
		return items, nil, nil
	}
	return items, &next, nil
}

// reset answers POST /tenants/{id}/reset: the generation is bumped, so every counter
// of the tenant starts afresh. If-Match is optional; without it, a concurrent update is
// retried a few times.
func (h *Handler) reset(w http.ResponseWriter, r *http.Request, p params) error {
	if err := readEmptyBody(r); err != nil {
		return err
	}
	m, err := parseIfMatch(r.Header)
	if err != nil {
		return err
	}
	for range maxAttempts {
		old, err := h.loadTenant(r.Context(), p.id)
		if err != nil {
			return err
		}
		if err := precondition(m, old.Version, false); err != nil {
			return err
		}
		stored, err := h.tenants.Replace(r.Context(), tenant.Reset(old), old.Version)
		switch {
		case err == nil:
			h.audit(r.Context(), OpReset, old, stored)
			writeTenant(w, http.StatusOK, stored)
			return nil
		case errors.Is(err, store.ErrVersionConflict) && !m.present:
			continue // changed meanwhile: reset the new version
		default:
			return conditionalError(err, tenantNotFound(p.id))
		}
	}
	return &apiError{slug: problemUnavailable, detail: "the tenant kept changing during the reset: nothing was reset, retry"}
}

// maxAttempts bounds the retries of a write that lost a race it may retry.
const maxAttempts = 3

// loadTenant reads the tenant: a 404 problem (which also matches
// store.ErrNotFound) when there is none.
func (h *Handler) loadTenant(ctx context.Context, id string) (tenant.Tenant, error) {
	return load(ctx, id, h.tenants.Get, tenantNotFound)
}

// load reads what get keeps under the tenant or plan id (the tenant, the plan, the
// tenant's key records): notFound's problem (which also matches store.ErrNotFound)
// when there is none, 503 when the store failed.
func load[T any](ctx context.Context, id string, get func(context.Context, string) (T, error), notFound func(string) *apiError) (T, error) {
	var zero T
	if !tenant.ValidID(id) {
		return zero, notFound(id)
	}
	v, err := get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return zero, notFound(id)
	}
	if err != nil {
		return zero, storeError(err)
	}
	return v, nil
}

func tenantNotFound(id string) *apiError {
	return &apiError{slug: problemNotFound, detail: "no tenant " + strconv.Quote(id), cause: store.ErrNotFound}
}

// Unwrap lets errors.Is see the cause of a problem.
func (e *apiError) Unwrap() error { return e.cause }

// writeTenant writes t with its ETag.
func writeTenant(w http.ResponseWriter, status int, t tenant.Tenant) {
	w.Header().Set("ETag", etag(t.Version))
	writeJSON(w, status, public(t))
}

// public returns t as the API shows it: without its creation id, which only counter
// keys use (ApplyCreate and ApplyUpdate ignore what a client sends of it).
func public(t tenant.Tenant) tenant.Tenant {
	t.CreationID = ""
	return t
}

// storeError answers a store failure: a validation error the store found is the
// client's (422), anything else is 503. A write whose reply was lost may have been
// applied: the detail says to read before retrying.
func storeError(err error) error {
	if e := fromValidation(err); e != nil {
		return e
	}
	return &apiError{slug: problemUnavailable, cause: err,
		detail: "a store did not answer as expected; a write may or may not have been applied: read the tenant again before retrying"}
}

// validationError answers an error of tenant.Decode or tenant.ApplyUpdate.
func validationError(err error) error {
	if e := fromValidation(err); e != nil {
		return e
	}
	return &apiError{slug: problemInternal, detail: "an unexpected error occurred", cause: err}
}
