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

// The client's replies and errors, for errors.Is and errors.As (see upstashrest's
// documentation of each).
type (
	// Reply is one command's reply, with checked accessors.
	Reply = upstashrest.Reply
	// Result is one command's outcome in a Pipeline or MultiExec.
	Result = upstashrest.Result
	// CommandError is an error Redis or Upstash returned for a command.
	CommandError = upstashrest.CommandError
	// StatusError is an HTTP status other than 200, 400 and 401.
	StatusError = upstashrest.StatusError
)

var (
	// ErrUnauthorized reports a 401: the token is missing, wrong, or read-only.
	ErrUnauthorized = upstashrest.ErrUnauthorized
	// ErrMalformedReply reports a reply that is not the REST API's JSON.
	ErrMalformedReply = upstashrest.ErrMalformedReply
)

// Script is a Lua script for Client.Eval: its text, plain and with Upstash's
// allow-key-locking line, and their SHA1s.
type Script = luascript.Script

// NewScript returns a Script for the Lua source src.
func NewScript(src string) *Script { return luascript.NewScript(src) }
