package upstash

import (
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

// Client sends commands to the Upstash REST API; Counters and Tenants take one. It is
// the module's own client (its package is internal), safe for concurrent use: make one
// per process with NewClient and share it.
type Client = upstashrest.Client

// ClientConfig configures a Client: the REST URL and token, and the options documented
// on each field.
type ClientConfig = upstashrest.Config

// NewClient checks cfg and returns a Client. It makes no request.
func NewClient(cfg ClientConfig) (*Client, error) { return upstashrest.NewClient(cfg) }

// ClientConfigFromEnv returns a ClientConfig with the URL and token read from
// UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.
func ClientConfigFromEnv() (ClientConfig, error) { return upstashrest.ConfigFromEnv() }

// Script is a Lua script for Client.Eval: its text, plain and with Upstash's
// allow-key-locking line, and their SHA1s.
type Script = luascript.Script

// NewScript returns a Script for the Lua source src.
func NewScript(src string) *Script { return luascript.NewScript(src) }
