package admin

import (
	"net/http"
	"strings"
)

// params holds the path parameters of a matched route.
type params struct {
	id    string            // {id}: the tenant id, or the plan id under /plans
	keyID string            // {keyId}
	query map[string]string // the query parameters, each one the method takes
}

// handlerFunc serves one method of one route; a non-nil error is answered as a
// problem, and the handler has then written nothing.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p params) error

// route is one path pattern and the methods it serves, in the order Allow lists them.
type route struct {
	pattern string // "/tenants/{id}/keys/{keyId}", as in docs/openapi.yaml
	methods []method
}

type method struct {
	name   string
	handle handlerFunc
	query  []string // the query parameters it takes: any other is a 400 problem
}

// routeTable lists every route the handler serves.
func (h *Handler) routeTable() []route {
	page := []string{"limit", "page_token"}
	return []route{
		{"/tenants", []method{{http.MethodGet, h.listTenants, page}}},
		{"/tenants/{id}", []method{
			{http.MethodGet, h.getTenant, nil}, {http.MethodPut, h.putTenant, nil},
			{http.MethodPatch, h.patchTenant, nil}, {http.MethodDelete, h.deleteTenant, nil},
		}},
		{"/tenants/{id}/keys", []method{{http.MethodGet, h.listKeys, nil}, {http.MethodPost, h.createKey, nil}}},
		{"/tenants/{id}/keys/{keyId}", []method{{http.MethodGet, h.getKey, nil}, {http.MethodDelete, h.revokeKey, []string{"purge"}}}},
		{"/tenants/{id}/usage", []method{{http.MethodGet, h.usage, []string{"key_id", "ip"}}}},
		{"/tenants/{id}/reset", []method{{http.MethodPost, h.reset, nil}}},
		{"/plans", []method{{http.MethodGet, h.listPlans, page}}},
		{"/plans/{id}", []method{{http.MethodGet, h.getPlan, nil}, {http.MethodPut, h.putPlan, nil}, {http.MethodDelete, h.deletePlan, nil}}},
		{"/reservations/{id}", []method{{http.MethodPost, h.settleReservation, nil}}}, // {id}: the reservation's
	}
}

// match finds the method of r's path and the path's parameters: a 404 problem when no
// pattern matches, a 405 problem (with Allow) when the pattern does not serve the method.
func (h *Handler) match(methodName, path string) (method, params, error) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, rt := range h.routes {
		p, ok := matchPattern(rt.pattern, segs)
		if !ok {
			continue
		}
		var allow []string
		for _, m := range rt.methods {
			if m.name == methodName {
				return m, p, nil
			}
			allow = append(allow, m.name)
		}
		e := newError(problemMethodNotAllowed, methodName+" is not allowed on "+rt.pattern+": use "+strings.Join(allow, ", "))
		e.header = http.Header{"Allow": {strings.Join(allow, ", ")}}
		return method{}, params{}, e
	}
	return method{}, params{}, newError(problemNotFound, "no such route: the routes are /tenants, /tenants/{id}, /tenants/{id}/{keys,keys/{keyId},usage,reset}, /plans and /plans/{id}")
}

// matchPattern matches path segments against a pattern; a parameter matches one
// non-empty segment.
func matchPattern(pattern string, segs []string) (params, bool) {
	pat := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	if len(pat) != len(segs) {
		return params{}, false
	}
	var p params
	for i, s := range pat {
		switch {
		case s == "{id}" && segs[i] != "":
			p.id = segs[i]
		case s == "{keyId}" && segs[i] != "":
			p.keyID = segs[i]
		case s != segs[i]:
			return params{}, false
		}
	}
	return p, true
}
