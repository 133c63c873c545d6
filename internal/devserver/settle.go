package devserver

import (
	"context"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/edgelimit/edgelimit/internal/headers"
)

// reservationKey carries an allowed request's reservation id to the proxy.
type reservationKey struct{}

// proxy returns the reverse proxy to upstream. It takes headers.SettleCost out of every
// response and, for a request with a reservation, settles it at that cost before the
// response reaches the client.
func (s *Server) proxy(upstream *url.URL) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.ModifyResponse = func(resp *http.Response) error {
		v := resp.Header.Get(headers.SettleCost)
		resp.Header.Del(headers.SettleCost)
		if id, _ := resp.Request.Context().Value(reservationKey{}).(string); id != "" && v != "" {
			s.settleAt(resp.Request.Context(), id, v)
		}
		return nil
	}
	return rp
}

// settleAt settles reservation id at the cost v, a headers.SettleCost value, and logs
// the outcome.
func (s *Server) settleAt(ctx context.Context, id, v string) {
	if s.settle == nil {
		return
	}
	cost, err := headers.ParseSettleCost(v)
	if err != nil {
		s.log.Warn("settle skipped", "err", err, "value", v)
		return
	}
	res, err := s.settle(context.WithoutCancel(ctx), id, cost)
	if err != nil {
		s.log.Warn("settle failed", "err", err)
		return
	}
	s.log.Info("settled", "status", res.Status, "tenant", res.TenantID, "reserved", res.Reserved, "actual", res.Actual)
}

// withReservation returns r carrying the reservation id for the proxy.
func withReservation(r *http.Request, id string) *http.Request {
	if id == "" {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), reservationKey{}, id))
}
