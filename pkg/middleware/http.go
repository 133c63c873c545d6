package middleware

import (
	"context"
	"net/http"

	"github.com/edgelimit/edgelimit/internal/request"
)

// Handler wraps next: each request is decided first; see the package doc. The route
// matched against the tenant's routes is the request's pattern when a ServeMux set one
// (wrap the mux's handlers, or the mux from inside), else its path; the source IP is
// RemoteAddr's host (put a trusted proxy's header there before this handler if needed).
// An allowed request's reservation is in the handler's context (ReservationFrom); it
// is settled once the handler returns or panics (http.ErrAbortHandler, as
// httputil.ReverseProxy panics when the client goes away), at the cost given to
// SetCost or in the response's SettleCostHeader, which the client never sees, else at
// the estimate when the request holds a concurrency slot. A panic goes on after the
// settle.
func (m *Middleware) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, p := m.decide(r.Context(), request.FromHTTP(r, m.gate.KeyHeader()))
		a.Write(w)
		if a.Status > 0 {
			return
		}
		if p == nil {
			next.ServeHTTP(w, r)
			return
		}
		ctx := withPending(r.Context(), p)
		sw := &settleWriter{ResponseWriter: w, p: p}
		defer m.settleHTTP(ctx, sw)
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

// settleHTTP settles the request whose handler wrote to sw, once it returned or
// panicked.
func (m *Middleware) settleHTTP(ctx context.Context, sw *settleWriter) {
	sw.done()
	m.settle(ctx, sw.p)
}
