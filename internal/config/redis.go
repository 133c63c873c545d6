//go:build edgelimit.redis || !(edgelimit.dynamodb || edgelimit.upstash)

package config

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/store/redis"
)

// This build has the redis backend (see Backends).
func init() { builders[BackendRedis] = Config.buildRedis }

// parseRedis reads the EDGELIMIT_REDIS_* variables.
func (c *Config) parseRedis(get func(string) string) error {
	r := Redis{Username: get(EnvRedisUsername), Token: get(EnvRedisToken), SecretARN: get(EnvRedisSecretARN),
		Prefix: get(EnvRedisPrefix)}
	if raw := get(EnvRedisAddr); raw != "" {
		addrs, err := redis.ParseAddrs(raw)
		if err != nil {
			return fmt.Errorf("config: %s = %q: %w", EnvRedisAddr, raw, err)
		}
		r.Addrs = addrs
	}
	if err := parseBool(EnvRedisCluster, get(EnvRedisCluster), &r.Cluster); err != nil {
		return err
	}
	if err := parseBool(EnvRedisTLS, get(EnvRedisTLS), &r.TLS); err != nil {
		return err
	}
	if strings.ContainsAny(r.Prefix, "{}") {
		return fmt.Errorf("config: %s = %q: the prefix is the tenants' hash tag and must not hold a brace", EnvRedisPrefix, r.Prefix)
	}
	c.Redis = r
	return nil
}

// buildRedis connects to Redis (one pool for both stores) after reading the AUTH
// token from Secrets Manager when that is where it is; the client then reads it again
// after the server refuses it, at most once a minute, so that a rotated token is found
// without a cold start.
func (c Config) buildRedis(ctx context.Context, opts Options) (*Stores, error) {
	r := c.Redis
	rc := redis.Config{Addrs: r.Addrs, Cluster: r.Cluster, Username: r.Username, Password: r.Token}
	if rc.Password == "" && r.SecretARN != "" {
		rc.RefreshPassword = func(ctx context.Context) (string, error) {
			return c.readSecret(ctx, opts, EnvRedisSecretARN, r.SecretARN)
		}
		var err error
		if rc.Password, err = rc.RefreshPassword(ctx); err != nil {
			return nil, err
		}
	}
	if r.TLS {
		rc.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	client, err := redis.NewClient(rc)
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", EnvRedisAddr, err)
	}
	tenants, err := redis.NewTenants(client, redis.TenantsConfig{Prefix: r.Prefix})
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", EnvRedisPrefix, err)
	}
	return &Stores{Tenants: tenants, Counters: redis.NewCounters(client, redis.CountersConfig{})}, nil
}
