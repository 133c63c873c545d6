package middleware

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/edgelimit/edgelimit/internal/wait"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/headers"
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
}

// Middleware decides requests before the handlers it wraps. Create it with New.
type Middleware struct {
	gate     *gate.Gate
	maxDelay time.Duration
	sleep    func(ctx context.Context, d time.Duration) error
}

// New checks cfg and returns a Middleware.
func New(cfg Config) (*Middleware, error) {
	if cfg.Gate == nil {
		return nil, errors.New("middleware: Config.Gate is required")
	}
	if cfg.MaxDelay == 0 {
		cfg.MaxDelay = time.Second
	}
	if cfg.Sleep == nil {
		cfg.Sleep = wait.Sleep
	}
	return &Middleware{gate: cfg.Gate, maxDelay: cfg.MaxDelay, sleep: cfg.Sleep}, nil
}

// verdict is what the middleware answers before the handler: either a response of its
// own (status > 0) or the headers to add to the handler's.
type verdict struct {
	status int
	header http.Header
	body   []byte
}

var (
	unauthorizedBody = []byte(`{"message":"Unauthorized"}`)
	internalBody     = []byte(`{"message":"Internal Server Error"}`)
)

// decide checks req with the gate, waits a leaky bucket's delay when it may, and returns
// the verdict.
func (m *Middleware) decide(ctx context.Context, req gate.Request) verdict {
	res, err := m.gate.Check(ctx, req)
	v := verdict{header: http.Header{}}
	switch {
	case err != nil:
		return m.answer(v, http.StatusInternalServerError, internalBody)
	case res.Status == gate.Unauthorized:
		return m.answer(v, http.StatusUnauthorized, unauthorizedBody)
	}
	if res.Set != nil {
		headers.Write(v.header, res.Set, res.Decision, res.Now, res.Policies()...)
	}
	if res.Status == gate.Denied {
		return m.answer(v, http.StatusTooManyRequests, headers.Body(res.Set, res.Decision, res.Now))
	}
	if delay := time.Duration(res.Decision.Delay) * time.Microsecond; delay > 0 && !res.Shadow && !res.FailOpen {
		if delay > m.maxDelay || m.sleep(ctx, delay) != nil {
			return m.tooLong(v, res, delay)
		}
	}
	return v
}

// tooLong answers 429 for an admitted request whose leaky-bucket delay is not waited.
func (m *Middleware) tooLong(v verdict, res gate.Result, delay time.Duration) verdict {
	d := res.Decision
	d.Allowed, d.RetryAfter = false, (delay - max(m.maxDelay, 0)).Microseconds()
	headers.Write(v.header, res.Set, d, res.Now, res.Policies()...)
	return m.answer(v, http.StatusTooManyRequests, headers.Body(res.Set, d, res.Now))
}

func (m *Middleware) answer(v verdict, status int, body []byte) verdict {
	v.status, v.body = status, body
	v.header.Set("Content-Type", "application/json")
	return v
}
