package devserver

import (
	"context"
	"net/http"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// reload reads the resources of every route of every tenant and plan of the store
// anew. Reloads run one at a time, so the last one stored read after every write that
// came before it. On error the resources stay as they were.
func (s *Server) reload(ctx context.Context) error {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	list, err := pageAll(ctx, s.tenants.List, nil, func(t tenant.Tenant) []tenant.Route { return t.Routes })
	if plans, ok := s.tenants.(store.Plans); ok && err == nil {
		list, err = pageAll(ctx, plans.ListPlans, list, func(p tenant.Plan) []tenant.Route { return p.Routes })
	}
	if err != nil {
		return err
	}
	rs := newResources(list)
	s.resources.Store(&rs)
	return nil
}

// pageAll appends to dst the resource of each route of every item that list pages
// through.
func pageAll[T any](ctx context.Context, list func(context.Context, int, string) ([]T, string, error), dst []string,
	routes func(T) []tenant.Route) ([]string, error) {
	for token := ""; ; {
		items, next, err := list(ctx, store.MaxListLimit, token)
		if err != nil {
			return dst, err
		}
		for _, item := range items {
			for _, r := range routes(item) {
				dst = append(dst, r.Resource)
			}
		}
		if next == "" {
			return dst, nil
		}
		token = next
	}
}

// serveAdmin serves the admin API, and reads the routes' resources again after a
// write it answers 2xx.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if s.tenants == nil || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		s.admin.ServeHTTP(w, r)
		return
	}
	rw := &reloadingWriter{ResponseWriter: w, s: s, ctx: context.WithoutCancel(r.Context())}
	s.admin.ServeHTTP(rw, r)
	if !rw.written { // nothing written: net/http answers 200
		rw.WriteHeader(http.StatusOK)
	}
}

// reloadingWriter passes an admin write's answer on, and reloads the resources before
// a 2xx one leaves: the next request meets the routes the write changed.
type reloadingWriter struct {
	http.ResponseWriter
	s       *Server
	ctx     context.Context
	written bool
}

func (w *reloadingWriter) WriteHeader(code int) {
	if !w.written && code/100 == 2 {
		if err := w.s.reload(w.ctx); err != nil {
			w.s.log.Warn("devserver: reading the routes' resources after an admin write", "error", err)
		}
	}
	w.written = w.written || code >= 200
	w.ResponseWriter.WriteHeader(code)
}

func (w *reloadingWriter) Write(b []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the connection's writer.
func (w *reloadingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
