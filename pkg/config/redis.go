package config

import (
	"context"
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/store/redis"
)

// Redis is the configuration of the redis backend (EDGELIMIT_REDIS_*).
type Redis struct {
	Addrs     []string // host:port of the server, or of nodes of the cluster
	Cluster   bool     // speak the Redis Cluster protocol
	TLS       bool     // in-transit encryption (the system's CAs; SSL_CERT_FILE adds one)
	Username  string   // an ACL user; "" authenticates the default user
	Token     string   // the AUTH token (password); "" with SecretARN unset: no AUTH
	SecretARN string   // read Token from this Secrets Manager secret instead
	Prefix    string   // starts the tenants' keys, and is their hash tag (default el:t:)
}

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
	for _, b := range []struct {
		name string
		v    *bool
	}{{EnvRedisCluster, &r.Cluster}, {EnvRedisTLS, &r.TLS}} {
		if s := get(b.name); s != "" {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("config: %s = %q: want true or false", b.name, s)
			}
			*b.v = v
		}
	}
	if strings.ContainsAny(r.Prefix, "{}") {
		return fmt.Errorf("config: %s = %q: the prefix is the tenants' hash tag and must not hold a brace", EnvRedisPrefix, r.Prefix)
	}
	c.Redis = r
	return nil
}

// buildRedis connects to Redis (one pool for both stores) after reading the AUTH
// token from Secrets Manager when that is where it is.
func (c Config) buildRedis(ctx context.Context, opts Options) (*Stores, error) {
	r := c.Redis
	token := r.Token
	if token == "" && r.SecretARN != "" {
		var err error
		if token, err = c.readSecret(ctx, opts, EnvRedisSecretARN, r.SecretARN); err != nil {
			return nil, err
		}
	}
	rc := redis.Config{Addrs: r.Addrs, Cluster: r.Cluster, Username: r.Username, Password: token}
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
