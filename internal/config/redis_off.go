//go:build !edgelimit.redis && (edgelimit.dynamodb || edgelimit.upstash)

package config

// parseRedis reads nothing: a build without the redis backend ignores EDGELIMIT_REDIS_*.
func (c *Config) parseRedis(func(string) string) error { return nil }
