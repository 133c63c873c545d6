package middleware

import (
	"net"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// Handler wraps next: each request is decided first; see the package doc. The route
// matched against the tenant's routes is the request's pattern when a ServeMux set one
// (wrap the mux's handlers, or the mux from inside), else its path; the source IP is
// RemoteAddr's host (put a trusted proxy's header there before this handler if needed).
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := m.decide(r.Context(), gate.Request{
			Method:   r.Method,
			Resource: resource(r),
			APIKey:   r.Header.Get(m.gate.KeyHeader()),
			SourceIP: hostOf(r.RemoteAddr),
		})
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

func resource(r *http.Request) string {
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.URL.Path
}

func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
