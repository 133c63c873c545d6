package middleware

import (
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/request"
)

// Handler wraps next: each request is decided first; see the package doc. The route
// matched against the tenant's routes is the request's pattern when a ServeMux set one
// (wrap the mux's handlers, or the mux from inside), else its path; the source IP is
// RemoteAddr's host (put a trusted proxy's header there before this handler if needed).
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := m.decide(r.Context(), request.FromHTTP(r, m.gate.KeyHeader()))
		for k, vals := range v.header {
			w.Header()[k] = vals
		}
		if v.status > 0 {
			w.Header().Set("Content-Length", strconv.Itoa(len(v.body)))
			w.WriteHeader(v.status)
			w.Write(v.body)
			return
		}
		next.ServeHTTP(w, r)
	})
}
