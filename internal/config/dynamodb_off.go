//go:build !edgelimit.dynamodb && (edgelimit.upstash || edgelimit.redis)

package config

import "context"

// CreateTables creates nothing: the backend is not in this build, which Load refuses.
func (c Config) CreateTables(context.Context, Options) ([]string, error) {
	return nil, nil
}
