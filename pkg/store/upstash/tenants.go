package upstash

import (
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

// DefaultPrefix starts every key of a Tenants whose TenantsConfig.Prefix is empty.
const DefaultPrefix = luascript.DefaultPrefix

// ErrBusy is returned when a key change or Delete lost 10 races in a row with other
// writes to the same tenant's keys. Nothing was changed; the call may be retried.
var ErrBusy = luascript.ErrBusy

// ErrMalformedScriptReply reports a script's answer that it never gives (of the wrong
// length, or with impossible values): a decision or a write fails with it, and nothing
// is written on the strength of it. A reply that is not the REST API's JSON is
// ErrMalformedReply.
var ErrMalformedScriptReply = luascript.ErrMalformedReply

// TenantsConfig configures a Tenants. Its zero value means the defaults.
type TenantsConfig struct {
	// Prefix starts every Redis key the store uses; "" means DefaultPrefix.
	Prefix string
}

// Tenants is the store.Tenants over Redis, shared with pkg/store/redis: its logic and
// scripts are written once, with the commands sent over a connection of either store.
// It is safe for concurrent use.
type Tenants = luascript.Tenants

// NewTenants returns a Tenants that sends its commands through the Upstash client c.
func NewTenants(c *upstashrest.Client, cfg TenantsConfig) *Tenants {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	return luascript.NewTenantsWith(restConn{c}, luascript.Layout{Prefix: cfg.Prefix}, "store/upstash")
}
