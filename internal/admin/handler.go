package admin

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// MaxBodyBytes bounds a request body; a larger one is answered 413.
const MaxBodyBytes = 64 << 10

// Config configures a Handler. Tenants and Counters are required; every other zero
// value means the default written beside the field.
type Config struct {
	// Tenants holds tenants and key records, and plans: the /plans routes need it to
	// be a store.Plans too, as every store of pkg/store is.
	Tenants store.Tenants
	// Counters holds the rate-limit state that usage reads (with Peek, which consumes
	// nothing).
	Counters store.Counters
	// Now is the clock, in microseconds since the Unix epoch; nil means the system
	// clock. Zone changes, key creation and revocation times, and usage read it.
	Now func() int64
	// NewKey makes API keys; nil means apikey.New. Tests inject known keys.
	NewKey func() apikey.Key
	// DefaultRules are the rules of a tenant written without any (EDGELIMIT_DEFAULT_RULES):
	// a PUT body without "rules", or a patch that removes them. A tenant that names a
	// plan gets none of them: its rules are its plan's. nil means none: a tenant
	// without rules or a plan is invalid.
	DefaultRules []limiter.Rule
	// Logger receives one record per failed store call (5xx answers); nil means
	// slog.Default(). API keys and request bodies are never logged.
	Logger *slog.Logger
	// Audit receives one record per admin write that succeeded (see the package doc,
	// "Audit trail"); nil means JSON lines on stderr (the function's log stream in
	// Lambda), whatever the log level.
	Audit *slog.Logger
	// Settle settles reservations for POST /reservations/{id} (gate.Gate.Settle); nil
	// means reservations are off there (404).
	Settle SettleFunc
}

// Handler is the admin API as an http.Handler: tenants, their API keys, usage and
// resets (see the package doc for the routes). It serves paths from the root
// ("/tenants/acme"); mount it elsewhere with http.StripPrefix. ServeV1, ServeV2 and
// Invoke adapt it to API Gateway proxy events for Lambda. Create it with New; it is
// safe for concurrent use.
type Handler struct {
	tenants      store.Tenants
	plans        store.Plans // Tenants as a Plans; nil when it keeps none
	counters     store.Counters
	now          func() int64
	newKey       func() apikey.Key
	defaultRules []limiter.Rule
	log          *slog.Logger
	auditLog     *slog.Logger
	routes       []route
	settle       SettleFunc
}

// New checks cfg and returns a Handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Tenants == nil || cfg.Counters == nil {
		return nil, errors.New("admin: Config.Tenants and Config.Counters are required")
	}
	h := &Handler{tenants: cfg.Tenants, counters: cfg.Counters, now: cfg.Now, newKey: cfg.NewKey, settle: cfg.Settle,
		log: cmp.Or(cfg.Logger, slog.Default()), auditLog: cmp.Or(cfg.Audit, slog.New(slog.NewJSONHandler(os.Stderr, nil)))}
	h.plans, _ = cfg.Tenants.(store.Plans)
	if len(cfg.DefaultRules) > 0 {
		if _, err := limiter.NewSet(cfg.DefaultRules, nil); err != nil {
			return nil, fmt.Errorf("admin: Config.DefaultRules: %w", err)
		}
		for i, r := range cfg.DefaultRules {
			if err := store.CheckRule(cfg.Counters, r); err != nil {
				return nil, fmt.Errorf("admin: Config.DefaultRules: rules[%d]: the counter store cannot honour it: %w", i, err)
			}
		}
		h.defaultRules = slices.Clone(cfg.DefaultRules)
	}
	if h.now == nil {
		h.now = func() int64 { return limiter.Micros(time.Now()) }
	}
	if h.newKey == nil {
		h.newKey = apikey.New
	}
	h.routes = h.routeTable()
	return h, nil
}

// ServeHTTP answers one admin request. An error is answered as
// application/problem+json, and a request answered with an error has written nothing.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = withRequest(r) // for the audit trail
	m, p, err := h.match(r.Method, r.URL.Path)
	if err == nil {
		p.query, err = query(r, m.query...)
	}
	if err == nil {
		err = m.handle(w, r, p)
	}
	if err == nil {
		return
	}
	ae, ok := errors.AsType[*apiError](err)
	if !ok {
		ae = &apiError{slug: problemInternal, detail: "an unexpected error occurred", cause: err}
	}
	if status := problems[ae.slug].status; status >= 500 {
		h.log.ErrorContext(r.Context(), "admin: request failed", "method", r.Method, "path", r.URL.Path, "status", status, "error", ae.cause)
	}
	writeProblem(w, ae, r.URL.Path)
}
