//go:build edgelimit.upstash || !(edgelimit.dynamodb || edgelimit.redis)

package config

import (
	"context"
	"fmt"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

// This build has the upstash backend (see Backends).
func init() { builders[BackendUpstash] = Config.buildUpstash }

// buildUpstash makes the upstash backend's stores over one REST client, after reading
// the token from Secrets Manager when that is where it is; the client then reads it
// again after a 401, at most once a minute, so that a rotated token is found without
// a cold start.
func (c Config) buildUpstash(ctx context.Context, opts Options) (*Stores, error) {
	token := c.UpstashToken
	var refresh func(context.Context) (string, error)
	if token == "" {
		refresh = func(ctx context.Context) (string, error) {
			return c.readSecret(ctx, opts, EnvUpstashSecretARN, c.UpstashSecretARN)
		}
		var err error
		if token, err = refresh(ctx); err != nil {
			return nil, err
		}
	}
	client, err := upstashrest.NewClient(upstashrest.Config{URL: c.UpstashURL, Token: token, RefreshToken: refresh,
		HTTPClient: opts.HTTPClient, KeyLocking: c.UpstashLocking, Pipelining: c.UpstashPipelining})
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", EnvUpstashURL, err)
	}
	return &Stores{
		Tenants:  upstash.NewTenants(client, upstash.TenantsConfig{Prefix: c.UpstashPrefix}),
		Counters: upstash.NewCounters(client, upstash.CountersConfig{}),
		warmUp: func(ctx context.Context) error { // a PING
			_, err := client.Do(ctx, "PING")
			return err
		},
	}, nil
}
