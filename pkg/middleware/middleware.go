package middleware

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/internal/pending"
	"github.com/edgelimit/edgelimit/internal/wait"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// Config configures a Middleware. Gate is required; zero values of the others mean the
// defaults written beside them.
type Config struct {
	// Gate decides the requests.
	Gate *gate.Gate
	// MaxDelay is the longest leaky-bucket delay waited before the handler runs; a
	// longer one is answered 429. 0 means 1 second; negative means never wait.
	MaxDelay time.Duration
	// Sleep waits d, or until ctx is done; nil means a timer. Tests inject it.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnSettle receives the outcome of each settle the middleware makes (see
	// SetCost); nil logs the failed ones with slog.
	OnSettle func(gate.SettleResult, error)
}

// Middleware decides requests before the handlers it wraps. Create it with New.
type Middleware struct {
	gate     *gate.Gate
	maxDelay time.Duration
	sleep    func(ctx context.Context, d time.Duration) error
	onSettle func(gate.SettleResult, error)
}

// New checks cfg and returns a Middleware.
func New(cfg Config) (*Middleware, error) {
	if cfg.Gate == nil {
		return nil, errors.New("middleware: Config.Gate is required")
	}
	cfg.MaxDelay = cmp.Or(cfg.MaxDelay, time.Second)
	if cfg.Sleep == nil {
		cfg.Sleep = wait.Sleep
	}
	if cfg.OnSettle == nil {
		cfg.OnSettle = logSettle
	}
	return &Middleware{gate: cfg.Gate, maxDelay: cfg.MaxDelay, sleep: cfg.Sleep, onSettle: cfg.OnSettle}, nil
}

// decide checks req with the gate, waits a leaky bucket's delay when it may, and returns
// the answer: a response of its own (Status > 0) or the fields to add to the handler's,
// with the pending reservation of a request the handler is to serve (nil when it has
// none). A delay not waited is a 429 whose reservation is released.
func (m *Middleware) decide(ctx context.Context, req gate.Request) (headers.Answer, *pending.Reservation) {
	res, err := m.gate.Check(ctx, req)
	if err != nil {
		return headers.Internal(), nil
	}
	a := headers.For(res, m.gate.KeyHeader())
	if a.Status > 0 {
		return a, nil
	}
	if delay := time.Duration(res.Decision.Delay) * time.Microsecond; delay > 0 && !res.Shadow && !res.FailOpen {
		if delay > m.maxDelay || m.sleep(ctx, delay) != nil {
			m.release(ctx, res.Reservation)
			return m.tooLong(res, delay), nil
		}
	}
	return a, pending.New(res)
}

// release settles at cost 0 the reservation of an admitted request that the handler
// will not serve (its leaky-bucket delay is not waited): its concurrency slots are
// freed and what it counted is refunded, as for a request never made.
func (m *Middleware) release(ctx context.Context, res gate.Reservation) {
	if res.ID == "" {
		return
	}
	r, err := m.gate.Settle(context.WithoutCancel(ctx), res.ID, 0)
	m.onSettle(r, err)
}

// tooLong answers 429 for an admitted request whose leaky-bucket delay is not waited.
func (m *Middleware) tooLong(res gate.Result, delay time.Duration) headers.Answer {
	res.Decision.Allowed, res.Decision.RetryAfter = false, (delay - max(m.maxDelay, 0)).Microseconds()
	return headers.Deny(res)
}
