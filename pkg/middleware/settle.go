package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/internal/pending"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// SettleCostHeader is the response header from which the middleware settles a
// request's reservation when the handler did not call SetCost; it is removed before the
// client sees the response.
const SettleCostHeader = headers.SettleCost

// ErrSettleCostHeader is the settle error of a SettleCostHeader that is not a cost (a
// decimal integer, 0 to 10^12): the estimate then stands (a request that holds a
// concurrency slot is settled at its estimate, which frees the slot).
var ErrSettleCostHeader = headers.ErrSettleCost

type pendingKey struct{}

// ReservationFrom returns the reservation of the request whose context is ctx, as the
// middleware passed it to the handler; ok is false when it has none (no reservation
// secret, or a shadow tenant's request over its limit).
func ReservationFrom(ctx context.Context) (r gate.Reservation, ok bool) {
	p, _ := ctx.Value(pendingKey{}).(*pending.Reservation)
	if p == nil {
		return gate.Reservation{}, false
	}
	return p.Res, true
}

// SetCost sets the real cost of the request whose context is ctx: once the handler
// returns (or panics), the middleware settles the request's reservation at cost (it
// wins over a SettleCostHeader). It does nothing for a request without a reservation.
func SetCost(ctx context.Context, cost int64) {
	if p, _ := ctx.Value(pendingKey{}).(*pending.Reservation); p != nil {
		p.SetCost(cost)
	}
}

// withPending returns ctx carrying p for the handler; ctx unchanged when p is nil (no
// reservation).
func withPending(ctx context.Context, p *pending.Reservation) context.Context {
	if p == nil {
		return ctx
	}
	return context.WithValue(ctx, pendingKey{}, p)
}

// settle settles p once the handler is done, returned or panicked: at SetCost's cost,
// else at the SettleCostHeader's, else at the estimate when the request holds a
// concurrency slot (which the settle frees); otherwise the estimate stands without a
// store call. A SettleCostHeader that is not a cost is reported with the outcome. It
// runs apart from the request's cancellation.
func (m *Middleware) settle(ctx context.Context, p *pending.Reservation) {
	if p == nil {
		return
	}
	cost, ok, herr := p.Cost()
	if herr != nil {
		herr = fmt.Errorf("middleware: %w", herr)
	}
	if !ok {
		if herr != nil {
			m.onSettle(gate.SettleResult{Reserved: p.Res.Cost}, herr)
		}
		return
	}
	r, err := m.gate.Settle(context.WithoutCancel(ctx), p.Res.ID, cost)
	m.onSettle(r, errors.Join(herr, err))
}

// logSettle is the default Config.OnSettle: a failed settle is logged.
func logSettle(r gate.SettleResult, err error) {
	if err != nil {
		slog.Warn("settle failed", "err", err, "tenant", r.TenantID, "reserved", r.Reserved)
	}
}
