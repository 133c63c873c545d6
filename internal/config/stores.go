package config

import (
	"context"
	"fmt"
	"net/http"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// Stores are the stores a Config names.
type Stores struct {
	Tenants  store.Tenants
	Counters store.Counters
	warmUp   func(context.Context) error // see WarmUp; nil: nothing to open
	// retryable tells the hot counters which of Counters's errors did nothing and may
	// be tried again as a throttle is; nil: none but store.ErrThrottled.
	retryable func(error) bool
	// ReservationSecret is the Config's, read from Secrets Manager when it names an
	// ARN; nil: no reservations.
	ReservationSecret []byte
}

// Options are what Build takes besides the Config, for tests and local tools.
type Options struct {
	// HTTPClient sends the Upstash, DynamoDB and Secrets Manager requests; nil means
	// each client's default.
	HTTPClient *http.Client
	// AWSConfig makes the AWS configuration of the DynamoDB and Secrets Manager
	// clients; nil means LambdaAWSConfig of the process's environment, which is what a
	// Lambda function has. awsdefault.Load is the SDK's default chain (profiles, SSO,
	// instance roles), for `edgelimit dev` and servers.
	AWSConfig AWSConfigFunc
	// Environ is the process's environment as os.Environ returns it, whose names Open
	// checks first (CheckNames): the functions pass it, so that a misspelt variable
	// fails the cold start. nil checks no name.
	Environ []string
}

// Build makes the stores of c. It makes no request to a store, except to read the
// Upstash or Redis token or the reservation secret from Secrets Manager when that is how it is configured, and
// to open the Redis connections (once, at a function's init; reused after).
func (c Config) Build(ctx context.Context, opts Options) (*Stores, error) {
	var (
		st  *Stores
		err error
	)
	build, built := builders[c.Backend]
	switch {
	case built:
		st, err = build(c, ctx, opts)
	case c.Backend == BackendDynamoDB || c.Backend == BackendUpstash || c.Backend == BackendRedis:
		return nil, c.checkBuilt(nil) // a Config that Load did not check
	default:
		st = &Stores{Tenants: memory.NewTenants(), Counters: memory.NewCounters(memory.CountersConfig{})}
	}
	if err != nil {
		return nil, err
	}
	if c.Hot() {
		st.Counters = hotcounter.New(st.Counters, hotcounter.Config{Threshold: c.HotThreshold, LeaseTime: c.HotLeaseTime, Retryable: st.retryable})
	}
	if st.ReservationSecret, err = c.reservationSecret(ctx, opts); err != nil {
		return nil, err
	}
	if c.TenantsFile != "" {
		file, err := memory.LoadFile(c.TenantsFile, func(r limiter.Rule) error { return store.CheckRule(st.Counters, r) })
		if err != nil {
			return nil, fmt.Errorf("config: %s: %w", EnvTenantsFile, err)
		}
		st.Tenants = file
	}
	return st, nil
}

// GateConfig returns the gate configuration of c over st, with the system clock.
func (c Config) GateConfig(st *Stores) gate.Config {
	return gate.Config{
		Tenants:         st.Tenants,
		Counters:        st.Counters,
		KeyHeader:       c.KeyHeader,
		LatencyBudget:   c.LatencyBudget,
		ConfigTTL:       c.ConfigTTL,
		FailMode:        c.FailMode,
		AnonymousTenant: c.AnonymousTenant,

		ReservationSecret: st.ReservationSecret,
	}
}

// Open loads the configuration through getenv and builds its stores: what every
// entry point (the functions, `edgelimit dev`, the middleware example) does first.
func Open(ctx context.Context, getenv func(string) string, opts Options) (Config, *Stores, error) {
	if err := CheckNames(opts.Environ); err != nil {
		return Config{}, nil, err
	}
	cfg, err := Load(getenv)
	if err != nil {
		return Config{}, nil, err
	}
	stores, err := cfg.Build(ctx, opts)
	if err != nil {
		return Config{}, nil, err
	}
	return cfg, stores, nil
}
