package middleware

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// SettleCostHeader is the response header from which the middleware settles a
// request's reservation when the handler did not call SetCost; it is removed before the
// client sees the response.
const SettleCostHeader = headers.SettleCost

// ErrSettleCostHeader is the settle error of a SettleCostHeader that is not a cost (a
// decimal integer, 0 to 10^12): the reservation is then left as it is.
var ErrSettleCostHeader = headers.ErrSettleCost

// pending is an allowed request's reservation and the cost its handler reports.
type pending struct {
	res gate.Reservation

	mu     sync.Mutex
	cost   int64
	set    bool
	header string // SettleCostHeader's value, when the response carried one
}

type pendingKey struct{}

// ReservationFrom returns the reservation of the request whose context is ctx, as the
// middleware passed it to the handler; ok is false when it has none (no reservation
// secret, or a shadow tenant's request over its limit).
func ReservationFrom(ctx context.Context) (r gate.Reservation, ok bool) {
	p, _ := ctx.Value(pendingKey{}).(*pending)
	if p == nil {
		return gate.Reservation{}, false
	}
	return p.res, true
}

// SetCost sets the real cost of the request whose context is ctx: once the handler
// returns, the middleware settles the request's reservation at cost (it wins over a
// SettleCostHeader). It does nothing for a request without a reservation.
func SetCost(ctx context.Context, cost int64) {
	if p, _ := ctx.Value(pendingKey{}).(*pending); p != nil {
		p.mu.Lock()
		p.cost, p.set = cost, true
		p.mu.Unlock()
	}
}

// withPending returns ctx carrying res for the handler, and its pending settle; ctx
// unchanged and nil when there is no reservation.
func withPending(ctx context.Context, res gate.Reservation) (context.Context, *pending) {
	if res.ID == "" {
		return ctx, nil
	}
	p := &pending{res: res}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// settle settles p once the handler is done: at SetCost's cost, else at the
// SettleCostHeader's; with neither the estimate stands. It runs apart from the
// request's cancellation.
func (m *Middleware) settle(ctx context.Context, p *pending) {
	if p == nil {
		return
	}
	p.mu.Lock()
	cost, set, header := p.cost, p.set, p.header
	p.mu.Unlock()
	if !set && header == "" {
		return
	}
	if !set {
		n, err := headers.ParseSettleCost(header)
		if err != nil {
			m.onSettle(gate.SettleResult{Reserved: p.res.Cost}, fmt.Errorf("middleware: %w: %q", err, header))
			return
		}
		cost = n
	}
	r, err := m.gate.Settle(context.WithoutCancel(ctx), p.res.ID, cost)
	m.onSettle(r, err)
}

// logSettle is the default Config.OnSettle: a failed settle is logged.
func logSettle(r gate.SettleResult, err error) {
	if err != nil {
		slog.Warn("settle failed", "err", err, "tenant", r.TenantID, "reserved", r.Reserved)
	}
}

// takeHeader removes SettleCostHeader from h and records its value in p.
func (p *pending) takeHeader(h http.Header) {
	if vs := h.Values(SettleCostHeader); len(vs) > 0 {
		h.Del(SettleCostHeader)
		p.record(vs[0])
	}
}

// record keeps v, a SettleCostHeader's value, for settle.
func (p *pending) record(v string) {
	p.mu.Lock()
	p.header = v
	p.mu.Unlock()
}
