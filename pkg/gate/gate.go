package gate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Defaults of Config, used where a field is zero.
const (
	DefaultKeyHeader       = "x-api-key"
	DefaultLatencyBudget   = 100 * time.Millisecond
	DefaultConfigTTL       = 10 * time.Second
	DefaultMaxStale        = 5 * time.Minute
	DefaultFailClosedRetry = time.Second
	DefaultMaxEntries      = 100_000
)

// Config configures a Gate. Tenants and Counters are required; every other zero value
// means the default written beside the field.
type Config struct {
	// Tenants holds tenants and key records; the gate only reads them (any
	// store.Tenants).
	Tenants Tenants
	// Counters holds the per-key rate-limit state.
	Counters store.Counters
	// Now is the clock, in microseconds since the Unix epoch; nil means the system clock.
	Now func() int64
	// KeyHeader names the header that carries the API key; "" means x-api-key. The gate
	// does not read headers itself: callers ask KeyHeader which one to pass as APIKey.
	KeyHeader string
	// LatencyBudget bounds all the store calls of one Check; 0 means 100ms.
	LatencyBudget time.Duration
	// ConfigTTL is how long key records and tenants are cached; 0 means 10s, and a
	// negative value turns the cache off (every Check loads them).
	ConfigTTL time.Duration
	// MaxStale is how long past ConfigTTL a cached entry is still used while the tenant
	// store fails; 0 means 5 minutes, negative means never.
	MaxStale time.Duration
	// FailMode applies when the store fails before the tenant is known; "" means
	// tenant.DefaultFailMode (closed).
	FailMode tenant.FailMode
	// FailClosedRetry is the RetryAfter of a fail-closed denial; 0 means 1s.
	FailClosedRetry time.Duration
	// AnonymousTenant, when set, names the tenant under which requests without an API
	// key are limited per source IP, on the routes that tenant marks anonymous.
	AnonymousTenant string
	// MaxEntries bounds each in-process cache (keys found, keys not found, tenants,
	// denials), each a least-recently-used cache; 0 means 100000.
	MaxEntries int
	// EpochLog receives the line written when the tenant store's epoch marker changed
	// (see Gate.CheckEpoch); nil means stdout.
	EpochLog io.Writer
	// ReservationSecret, at least MinSecretBytes long, seals the reservations of
	// allowed requests (Result.Reservation) and opens them in Settle; nil means no
	// reservations: Results carry none and Settle answers SettleOff.
	ReservationSecret []byte
}

// Gate decides requests. Create it with New; it is safe for concurrent use.
type Gate struct {
	counters  store.Counters
	now       func() int64
	keyHeader string
	budget    time.Duration
	failMode  tenant.FailMode
	failRetry int64 // microseconds
	anonymous string
	configs   *configCache
	denials   *denialCache
	epoch     *epochWatch // nil: the tenant store has no epoch marker
	secret    []byte      // nil: no reservations
}

// New checks cfg and returns a Gate.
func New(cfg Config) (*Gate, error) {
	if cfg.Tenants == nil || cfg.Counters == nil {
		return nil, errors.New("gate: Config.Tenants and Config.Counters are required")
	}
	switch cfg.FailMode {
	case "":
		cfg.FailMode = tenant.DefaultFailMode
	case tenant.FailOpen, tenant.FailClosed:
	default:
		return nil, errors.New(`gate: Config.FailMode must be "open" or "closed"`)
	}
	if cfg.AnonymousTenant != "" && !tenant.ValidID(cfg.AnonymousTenant) {
		return nil, errors.New("gate: Config.AnonymousTenant is not a valid tenant id")
	}
	if cfg.ReservationSecret != nil && len(cfg.ReservationSecret) < MinSecretBytes {
		return nil, fmt.Errorf("gate: Config.ReservationSecret holds %d bytes, at least %d are needed", len(cfg.ReservationSecret), MinSecretBytes)
	}
	cfg = withDefaults(cfg)
	configs, err := newConfigCache(cfg.Tenants, cfg.ConfigTTL, cfg.MaxStale, cfg.MaxEntries)
	if err != nil {
		return nil, err
	}
	denials, err := newDenialCache(cfg.MaxEntries)
	if err != nil {
		return nil, err
	}
	return &Gate{
		counters:  cfg.Counters,
		now:       cfg.Now,
		keyHeader: cfg.KeyHeader,
		budget:    cfg.LatencyBudget,
		failMode:  cfg.FailMode,
		failRetry: cfg.FailClosedRetry.Microseconds(),
		anonymous: cfg.AnonymousTenant,
		configs:   configs,
		denials:   denials,
		epoch:     newEpochWatch(cfg.Tenants, cfg.ConfigTTL, cfg.EpochLog),
		secret:    bytes.Clone(cfg.ReservationSecret),
	}, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Now == nil {
		cfg.Now = func() int64 { return limiter.Micros(time.Now()) }
	}
	cfg.KeyHeader = cmp.Or(cfg.KeyHeader, DefaultKeyHeader)
	if cfg.LatencyBudget <= 0 {
		cfg.LatencyBudget = DefaultLatencyBudget
	}
	cfg.ConfigTTL = cmp.Or(cfg.ConfigTTL, DefaultConfigTTL)
	cfg.MaxStale = cmp.Or(cfg.MaxStale, DefaultMaxStale)
	if cfg.FailClosedRetry <= 0 {
		cfg.FailClosedRetry = DefaultFailClosedRetry
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	return cfg
}

// KeyHeader returns the name of the header that carries the API key.
func (g *Gate) KeyHeader() string { return g.keyHeader }

// LatencyBudget returns the bound on the store calls of one Check.
func (g *Gate) LatencyBudget() time.Duration { return g.budget }

// Now reads the gate's clock (microseconds since the Unix epoch).
func (g *Gate) Now() int64 { return g.now() }
