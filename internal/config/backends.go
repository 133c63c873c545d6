package config

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Backends returns the backends this binary has, memory first. The build tags
// edgelimit.dynamodb, edgelimit.upstash and edgelimit.redis choose them. With none of
// them a binary has every backend: what `go build`, `go test` and the edgelimit command
// get. With one or more it has those and the memory backend, and links no other
// backend's client: the Makefile builds the template's authorizer functions so, one per
// backend (build-Authorizer* targets), and a DynamoDB deployment's bootstrap then has
// no Redis client in it, nor an Upstash or Redis one the AWS SDK's DynamoDB client,
// whose package initialisation is most of what a cold start spends beyond
// aws-lambda-go's own.
func Backends() []string {
	out := []string{BackendMemory}
	for _, b := range []string{BackendDynamoDB, BackendUpstash, BackendRedis} {
		if builders[b] != nil {
			out = append(out, b)
		}
	}
	return out
}

// builders make the stores of the backends this binary has besides memory, by name:
// each backend's file, which the build tags leave in or out, adds its own (Build).
var builders = map[string]func(Config, context.Context, Options) (*Stores, error){}

// checkBuilt refuses a backend that this binary was built without, naming what it has.
func (c *Config) checkBuilt(func(string) string) error {
	if slices.Contains(Backends(), c.Backend) {
		return nil
	}
	return fmt.Errorf("config: %s = %q: this binary was built without that backend (it has %s); "+
		"build it with -tags edgelimit.%s, or with no edgelimit.* tag for every backend",
		EnvBackend, c.Backend, strings.Join(Backends(), ", "), c.Backend)
}
