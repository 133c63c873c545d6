package upstashrest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// The environment variables Upstash users know, as the Upstash console names them.
const (
	EnvURL   = "UPSTASH_REDIS_REST_URL"
	EnvToken = "UPSTASH_REDIS_REST_TOKEN"
)

// DefaultTokenRefreshInterval is Config.TokenRefreshInterval's default.
const DefaultTokenRefreshInterval = time.Minute

// DefaultMaxReplyBytes is the reply size cap when Config.MaxReplyBytes is zero.
const DefaultMaxReplyBytes = 8 << 20

// Header names of the REST protocol.
const (
	headerEncoding  = "Upstash-Encoding"   // "base64": string replies in base64
	headerSyncToken = "Upstash-Sync-Token" // read-your-writes token, echoed back
)

// Config configures a Client. Its zero values mean the defaults written beside
// each field; URL and Token are required.
type Config struct {
	// URL is the database's REST URL as the Upstash console shows it
	// (https://NAME.upstash.io). http:// is accepted, for local servers.
	URL string

	// Token is the REST token, sent as "Authorization: Bearer TOKEN".
	Token string

	// HTTPClient, when set, sends the requests (a test's counting transport, say); it
	// must not send a request again once any of it was written. Nil means a client
	// shared by this package's Clients (see the package doc): kept-alive connections,
	// HTTP/2 when the server offers it, the environment's proxy, no overall timeout
	// (deadlines come from each call's context), redirects not followed (they surface
	// as a *StatusError).
	HTTPClient *http.Client

	// KeyLocking sends scripts as "#!lua flags=allow-key-locking\n" + source, so
	// that Upstash locks only the keys a script declares instead of running it
	// under a global lock. Upstash only: plain Redis 7 rejects the flag, and the
	// local server strips it. Default false.
	KeyLocking bool

	// MaxReplyBytes caps the reply body read; a larger reply is an
	// ErrMalformedReply. Zero means DefaultMaxReplyBytes.
	MaxReplyBytes int64

	// NoSyncToken turns read-your-writes off: the client neither remembers nor
	// sends the upstash-sync-token header. Default false (on, as in the official
	// clients).
	NoSyncToken bool

	// RefreshToken, when set, reads the token again (from where it came: a Secrets
	// Manager secret, say) after a 401, at most once per TokenRefreshInterval; a token
	// that changed then sends the refused request again, once. A 401 means the server
	// ran nothing, so that is not a retry of a command that may have run. Nil: a 401
	// is ErrUnauthorized, until the token is set by a new Client.
	RefreshToken func(ctx context.Context) (string, error)

	// TokenRefreshInterval is the least time between two calls of RefreshToken; 0
	// means DefaultTokenRefreshInterval.
	TokenRefreshInterval time.Duration

	// Pipelining sends the commands of calls made while requests are in flight
	// together, in one /pipeline request, as soon as one of those returns: in a
	// long-running process deciding many requests at once (the middleware on a
	// server), fewer, larger requests. A lone call goes alone, as without it. Default
	// false: a Lambda function runs one invocation at a time, so nothing would share
	// a request.
	Pipelining bool
}

// Client sends commands to the Upstash REST API. It is safe for concurrent use.
//
// Each method call is exactly one HTTP request (Eval: two when the server's script
// cache is cold; with Config.Pipelining, concurrent calls may share one), and the
// client never retries a request that may have reached the server: a command whose
// reply was lost may have run, and running a rate-limit script twice would consume
// twice. The caller decides what a failure means. Deadlines come from the context.
// Under concurrent calls, the sync token sent is the one received last.
type Client struct {
	http       *http.Client
	base       string                 // the REST URL without a trailing slash
	auth       atomic.Pointer[string] // "Bearer TOKEN"
	renew      tokenRenewal
	keyLocking bool
	maxReply   int64
	noSync     bool
	pipe       *pipeliner // nil: no pipelining
	requests   atomic.Int64
	syncToken  atomic.Pointer[string] // the last upstash-sync-token received
}

// NewClient checks cfg and returns a Client. It makes no request.
func NewClient(cfg Config) (*Client, error) {
	u, err := parseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("upstash: URL: %w", err)
	}
	if err := checkToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("upstash: token: %w", err)
	}
	c := &Client{
		base:       strings.TrimRight(u.String(), "/"),
		renew:      tokenRenewal{read: cfg.RefreshToken, every: cfg.TokenRefreshInterval},
		http:       cfg.HTTPClient,
		keyLocking: cfg.KeyLocking,
		maxReply:   cfg.MaxReplyBytes,
		noSync:     cfg.NoSyncToken,
	}
	c.setToken(cfg.Token)
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	if c.renew.every <= 0 {
		c.renew.every = DefaultTokenRefreshInterval
	}
	if c.maxReply <= 0 {
		c.maxReply = DefaultMaxReplyBytes
	}
	if cfg.Pipelining {
		c.pipe = &pipeliner{c: c}
	}
	return c, nil
}

// Requests returns how many HTTP requests the client has handed to net/http, whatever
// came back. Tests and benchmarks divide it by the calls made.
func (c *Client) Requests() int64 { return c.requests.Load() }

func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%q must start with https:// (the REST URL, not the redis:// one)", raw)
	}
	if u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%q: want https://HOST[/PATH] with no credentials, query or fragment", raw)
	}
	return u, nil
}

func checkToken(token string) error {
	switch {
	case token == "":
		return errors.New("empty")
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return errors.New("contains whitespace or control characters")
	}
	return nil
}

// Do sends one command, such as Do(ctx, "SET", key, "v", "PX", 1000), and returns
// its reply. Arguments may be strings, []byte (valid UTF-8: the REST API carries
// arguments as JSON strings), integers, floats and bools (sent as 1 or 0).
// A Redis error is a *CommandError.
//
// With Config.Pipelining, a call made while requests are in flight waits to go with
// the others in one /pipeline request.
func (c *Client) Do(ctx context.Context, args ...any) (Reply, error) {
	cmd, err := command(args)
	if err != nil {
		return Reply{}, fmt.Errorf("upstash: %w", err)
	}
	return c.do(ctx, cmd)
}

// do sends cmd: alone, or with Config.Pipelining with the commands of concurrent
// calls.
func (c *Client) do(ctx context.Context, cmd []string) (Reply, error) {
	if c.pipe != nil {
		return c.pipe.do(ctx, cmd)
	}
	return c.send(ctx, cmd)
}

// send sends one command in a request of its own.
func (c *Client) send(ctx context.Context, cmd []string) (Reply, error) {
	name := commandName(cmd)
	status, body, err := c.post(ctx, "", name, cmd)
	if err != nil {
		return Reply{}, err
	}
	return decodeReply(status, body, name)
}

// Pipeline sends the commands in one request to /pipeline and returns one Result
// per command, in order. The commands run in order but not atomically: others may
// interleave, and a command's failure does not stop the rest.
func (c *Client) Pipeline(ctx context.Context, cmds [][]any) ([]Result, error) {
	return c.batch(ctx, "/pipeline", cmds)
}

// MultiExec sends the commands in one request to /multi-exec, which runs them as
// a Redis transaction (MULTI/EXEC): nothing else runs in between. A command that
// fails at run time (WRONGTYPE) has its own Result.Err and the others still apply;
// a transaction the server refuses as a whole is a *CommandError.
func (c *Client) MultiExec(ctx context.Context, cmds [][]any) ([]Result, error) {
	return c.batch(ctx, "/multi-exec", cmds)
}

func (c *Client) batch(ctx context.Context, path string, args [][]any) ([]Result, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("upstash: %s: no commands", path)
	}
	cmds := make([][]string, len(args))
	for i, a := range args {
		var err error
		if cmds[i], err = command(a); err != nil {
			return nil, fmt.Errorf("upstash: %s: command %d: %w", path, i, err)
		}
	}
	return c.postBatch(ctx, path, cmds)
}

// postBatch sends cmds to path and returns their Results, each CommandError naming
// its command.
func (c *Client) postBatch(ctx context.Context, path string, cmds [][]string) ([]Result, error) {
	status, body, err := c.post(ctx, path, path[1:], cmds)
	if err != nil {
		return nil, err
	}
	results, err := decodeBatch(status, body, path, len(cmds))
	for i := range results {
		if ce, ok := results[i].Err.(*CommandError); ok {
			ce.Command = commandName(cmds[i])
		}
	}
	return results, err
}
