package admin

import (
	"net/http"
	"strings"
)

// params holds the path parameters of a matched route.
type params struct {
	id    string // {id}: the tenant id, or the plan id under /plans
	keyID string // {keyId}
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
}

// Route names one operation the handler serves: an HTTP method and a path pattern as
// docs/openapi.yaml writes it.
type Route struct {
	Method, Pattern string
}

// routeTable lists every route the handler serves.
func (h *Handler) routeTable() []route {
	return []route{
		{"/tenants", []method{{http.MethodGet, h.listTenants}}},
		{"/tenants/{id}", []method{
			{http.MethodGet, h.getTenant}, {http.MethodPut, h.putTenant},
			{http.MethodPatch, h.patchTenant}, {http.MethodDelete, h.deleteTenant},
		}},
		{"/tenants/{id}/keys", []method{{http.MethodGet, h.listKeys}, {http.MethodPost, h.createKey}}},
		{"/tenants/{id}/keys/{keyId}", []method{{http.MethodGet, h.getKey}, {http.MethodDelete, h.revokeKey}}},
		{"/tenants/{id}/usage", []method{{http.MethodGet, h.usage}}},
		{"/tenants/{id}/reset", []method{{http.MethodPost, h.reset}}},
		{"/plans", []method{{http.MethodGet, h.listPlans}}},
		{"/plans/{id}", []method{{http.MethodGet, h.getPlan}, {http.MethodPut, h.putPlan}, {http.MethodDelete, h.deletePlan}}},
		{"/reservations/{id}", []method{{http.MethodPost, h.settleReservation}}}, // {id}: the reservation's
	}
}

// Routes lists the operations the handler serves, for documentation and tests.
func (h *Handler) Routes() []Route {
	var out []Route
	for _, rt := range h.routes {
		for _, m := range rt.methods {
			out = append(out, Route{Method: m.name, Pattern: rt.pattern})
		}
	}
	return out
}

// match finds the handler of method on path: a 404 problem when no pattern matches, a
// 405 problem (with Allow) when the pattern does not serve the method.
func (h *Handler) match(methodName, path string) (handlerFunc, params, error) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, rt := range h.routes {
		p, ok := matchPattern(rt.pattern, segs)
		if !ok {
			continue
		}
		var allow []string
		for _, m := range rt.methods {
			if m.name == methodName {
				return m.handle, p, nil
			}
			allow = append(allow, m.name)
		}
		e := newError(problemMethodNotAllowed, methodName+" is not allowed on "+rt.pattern+": use "+strings.Join(allow, ", "))
		e.header = http.Header{"Allow": {strings.Join(allow, ", ")}}
		return nil, params{}, e
	}
	return nil, params{}, newError(problemNotFound, "no such route: the routes are /tenants, /tenants/{id}, /tenants/{id}/{keys,keys/{keyId},usage,reset}, /plans and /plans/{id}")
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
