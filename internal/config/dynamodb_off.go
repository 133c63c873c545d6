//go:build !edgelimit.dynamodb && (edgelimit.upstash || edgelimit.redis)

package config

import "context"

// hasDynamoDB: this build has no dynamodb backend (see Backends).
const hasDynamoDB = false

// buildDynamoDB is unreachable: Load refuses the backend (checkBuilt).
func (c Config) buildDynamoDB(context.Context, Options) (*Stores, error) {
	return nil, c.checkBuilt(nil)
}

// CreateTables creates nothing: the backend is not in this build, which Load refuses.
func (c Config) CreateTables(context.Context, Options) ([]string, error) {
	return nil, nil
}
