package middleware

import (
	"net/http"

	"github.com/edgelimit/edgelimit/internal/request"
)

// Handler wraps next: each request is decided first; see the package doc. The route
// matched against the tenant's routes is the request's pattern when a ServeMux set one
// (wrap the mux's handlers, or the mux from inside), else its path; the source IP is
// RemoteAddr's host (put a trusted proxy's header there before this handler if needed).
// An allowed request's reservation is in the handler's context (ReservationFrom); it
// is settled once the handler returns, at the cost given to SetCost or in the
// response's SettleCostHeader, which the client never sees.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, res := m.decide(r.Context(), request.FromHTTP(r, m.gate.KeyHeader()))
		a.Write(w)
		if a.Status > 0 {
			return
		}
		ctx, p := withPending(r.Context(), res)
		if p == nil {
			next.ServeHTTP(w, r)
			return
		}
		sw := &settleWriter{ResponseWriter: w, p: p}
		next.ServeHTTP(sw, r.WithContext(ctx))
		sw.done()
		m.settle(ctx, p)
	})
}
