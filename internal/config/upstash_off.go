//go:build !edgelimit.upstash && (edgelimit.dynamodb || edgelimit.redis)

package config

import "context"

// hasUpstash: this build has no upstash backend (see Backends).
const hasUpstash = false

// buildUpstash is unreachable: Load refuses the backend (checkBuilt).
func (c Config) buildUpstash(context.Context, Options) (*Stores, error) {
	return nil, c.checkBuilt(nil)
}
