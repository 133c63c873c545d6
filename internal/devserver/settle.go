package devserver

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/internal/pending"
)

// reservationKey carries an allowed request's pending reservation to the proxy.
type reservationKey struct{}

// proxy returns the reverse proxy to upstream. It takes headers.SettleCost out of every
// response and, for a request with a reservation, settles it once the exchange is over
// (the body copied, the upstream unreachable, or the client gone): at that header's
// cost, else at the estimate when the request holds a concurrency slot (see
// internal/pending).
func (s *Server) proxy(upstream *url.URL) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.ModifyResponse = func(resp *http.Response) error {
		if p := pendingOf(resp.Request.Context()); p != nil {
			p.TakeHeader(resp.Header)
		}
		resp.Header.Del(headers.SettleCost)
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := pendingOf(r.Context()); p != nil {
			defer s.settleEnded(r.Context(), p)
		}
		rp.ServeHTTP(w, r)
	})
}

// settleEnded settles p, the reservation of a request whose exchange is over, and logs
// the outcome.
func (s *Server) settleEnded(ctx context.Context, p *pending.Reservation) {
	if s.settle == nil {
		return
	}
	cost, ok, err := p.Cost()
	if err != nil {
		s.log.Warn("settle cost ignored: the estimate stands", "err", err)
	}
	if !ok {
		return
	}
	res, err := s.settle(context.WithoutCancel(ctx), p.Res.ID, cost)
	if err != nil {
		s.log.Warn("settle failed", "err", err)
		return
	}
	s.log.Info("settled", "status", res.Status, "tenant", res.TenantID, "reserved", res.Reserved, "actual", res.Actual)
}

// withReservation returns r carrying p, its pending reservation, for the proxy.
func withReservation(r *http.Request, p *pending.Reservation) *http.Request {
	if p == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), reservationKey{}, p))
}

// pendingOf returns the pending reservation that ctx carries, or nil.
func pendingOf(ctx context.Context) *pending.Reservation {
	p, _ := ctx.Value(reservationKey{}).(*pending.Reservation)
	return p
}
