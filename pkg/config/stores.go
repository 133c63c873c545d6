package config

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/pkg/backends"
	bdynamodb "github.com/edgelimit/edgelimit/pkg/backends/dynamodb"
	bmemory "github.com/edgelimit/edgelimit/pkg/backends/memory"
	"github.com/edgelimit/edgelimit/pkg/backends/upstash"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/tenantstore"
	tdynamodb "github.com/edgelimit/edgelimit/pkg/tenantstore/dynamodb"
	tmemory "github.com/edgelimit/edgelimit/pkg/tenantstore/memory"
	tupstash "github.com/edgelimit/edgelimit/pkg/tenantstore/upstash"
)

// Stores are the stores a Config names.
type Stores struct {
	Tenants  tenantstore.Store
	Counters backends.Store
}

// Options are what Build takes besides the Config, for tests and local tools.
type Options struct {
	// HTTPClient sends the Upstash, DynamoDB and Secrets Manager requests; nil means
	// each client's default.
	HTTPClient *http.Client
}

// Build makes the stores of c. It makes no request to a store, except to read the
// Upstash token from Secrets Manager when that is how it is configured.
func (c Config) Build(ctx context.Context, opts Options) (*Stores, error) {
	var (
		st  *Stores
		err error
	)
	switch c.Backend {
	case BackendDynamoDB:
		st, err = c.buildDynamoDB(ctx, opts)
	case BackendUpstash:
		st, err = c.buildUpstash(ctx, opts)
	default:
		st = &Stores{Tenants: tmemory.New(), Counters: bmemory.New(bmemory.Config{})}
	}
	if err != nil {
		return nil, err
	}
	if c.Hot() {
		st.Counters = hotcounter.New(st.Counters, c.hotConfig())
	}
	if c.TenantsFile != "" {
		file, err := tmemory.LoadFile(c.TenantsFile)
		if err != nil {
			return nil, fmt.Errorf("config: %s: %w", EnvTenantsFile, err)
		}
		st.Tenants = file
	}
	return st, nil
}

// hotConfig configures the hot counters: the knobs, and the dynamodb store's
// ErrContention (every attempt's condition failed: nothing written) retried as a throttle.
func (c Config) hotConfig() hotcounter.Config {
	return hotcounter.Config{Threshold: c.HotThreshold, LeaseTime: c.HotLeaseTime,
		Retryable: func(err error) bool { return errors.Is(err, bdynamodb.ErrContention) }}
}

// awsConfig loads the SDK's configuration (credentials, region, CA bundle) from the
// environment; an Options.HTTPClient is set on each service client instead, so that
// it can be combined with AWS_CA_BUNDLE.
func (c Config) awsConfig(ctx context.Context) (aws.Config, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("config: AWS configuration: %w", err)
	}
	return cfg, nil
}

func (c Config) buildDynamoDB(ctx context.Context, opts Options) (*Stores, error) {
	awsCfg, err := c.awsConfig(ctx)
	if err != nil {
		return nil, err
	}
	client := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		if c.DynamoDBEndpoint != "" { // the SDK reads it too; this honours Load's getenv
			o.BaseEndpoint = aws.String(c.DynamoDBEndpoint)
		}
	})
	st := &Stores{Counters: bdynamodb.New(client, c.CountersTable, bdynamodb.Config{})}
	if c.TenantsTable != "" {
		st.Tenants = tdynamodb.New(client, c.TenantsTable)
	}
	return st, nil
}

func (c Config) buildUpstash(ctx context.Context, opts Options) (*Stores, error) {
	token := c.UpstashToken
	if token == "" {
		var err error
		if token, err = c.readSecret(ctx, opts); err != nil {
			return nil, err
		}
	}
	client, err := upstash.NewClient(upstash.Config{URL: c.UpstashURL, Token: token,
		HTTPClient: opts.HTTPClient, KeyLocking: c.UpstashLocking})
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", EnvUpstashURL, err)
	}
	return &Stores{
		Tenants:  tupstash.New(client, tupstash.Config{Prefix: c.UpstashPrefix}),
		Counters: upstash.NewStore(client, upstash.StoreConfig{}),
	}, nil
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
	}
}

// Open loads the configuration through getenv and builds its stores: what every
// entry point (the functions, `edgelimit dev`, the middleware example) does first.
func Open(ctx context.Context, getenv func(string) string, opts Options) (Config, *Stores, error) {
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
