package upstash

import "github.com/edgelimit/edgelimit/internal/upstashrest"

// Client sends commands to the Upstash REST API; Counters and Tenants take one. It is
// the module's own client (its package is internal), safe for concurrent use: make one
// per process with NewClient and share it.
type Client = upstashrest.Client

// ClientConfig configures a Client: the REST URL and token, and the options documented
// on each field.
type ClientConfig = upstashrest.Config

// NewClient checks cfg and returns a Client. It makes no request.
func NewClient(cfg ClientConfig) (*Client, error) { return upstashrest.NewClient(cfg) }

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
