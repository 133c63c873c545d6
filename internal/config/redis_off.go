//go:build !edgelimit.redis && (edgelimit.dynamodb || edgelimit.upstash)

package config

import "context"

// hasRedis: this build has no redis backend (see Backends).
const hasRedis = false

// parseRedis reads nothing: a build without the redis backend ignores EDGELIMIT_REDIS_*.
func (c *Config) parseRedis(func(string) string) error { return nil }

// buildRedis is unreachable: Load refuses the backend (checkBuilt).
func (c Config) buildRedis(context.Context, Options) (*Stores, error) {
	return nil, c.checkBuilt(nil)
}
