package upstashrest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// The environment variables Upstash users know, read by ConfigFromEnv.
const (
	EnvURL   = "UPSTASH_REDIS_REST_URL"
	EnvToken = "UPSTASH_REDIS_REST_TOKEN"
)

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

	// HTTPClient sends the requests. Nil means a client shared by this package:
	// one keep-alive transport (http.DefaultTransport's settings with 64 idle
	// connections per host), no overall timeout (deadlines come from each call's
	// context) and redirects not followed (they surface as a *StatusError).
	// A client given here must not retry requests itself.
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

	// Pipelining sends the commands of calls made while requests are in flight
	// together, in one /pipeline request, as soon as one of those returns: in a
	// long-running process deciding many requests at once (the middleware on a
	// server), fewer, larger requests. A lone call goes alone, as without it. Default
	// false: a Lambda function runs one invocation at a time, so nothing would share
	// a request.
	Pipelining bool
}

// ConfigFromEnv returns a Config with URL and Token read from
// UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, checked as NewClient
// checks them. Other fields keep their defaults.
func ConfigFromEnv() (Config, error) {
	cfg := Config{
		URL:   strings.TrimSpace(os.Getenv(EnvURL)),
		Token: strings.TrimSpace(os.Getenv(EnvToken)),
	}
	if cfg.URL == "" {
		return Config{}, fmt.Errorf("upstash: %s is not set: copy the REST URL from the Upstash console", EnvURL)
	}
	if cfg.Token == "" {
		return Config{}, fmt.Errorf("upstash: %s is not set: copy the REST token from the Upstash console", EnvToken)
	}
	if _, err := parseBaseURL(cfg.URL); err != nil {
		return Config{}, fmt.Errorf("upstash: %s: %w", EnvURL, err)
	}
	if err := checkToken(cfg.Token); err != nil {
		return Config{}, fmt.Errorf("upstash: %s: %w", EnvToken, err)
	}
	return cfg, nil
}

// Client sends commands to the Upstash REST API. It is safe for concurrent use.
//
// Each method call is exactly one HTTP request (Eval: two when the server's script
// cache is cold; with Config.Pipelining, concurrent calls may share one), and the
// client never retries: a command whose reply was lost may
// have run, and running a rate-limit script twice would consume twice. The caller
// decides what a failure means. Deadlines come from the context. Under concurrent
// calls, the sync token sent is the one received last.
type Client struct {
	base       string // the REST URL without a trailing slash
	auth       string // "Bearer TOKEN"
	http       *http.Client
	keyLocking bool
	maxReply   int64
	noSync     bool
	syncToken  atomic.Pointer[string] // the last upstash-sync-token received
	pipe       *pipeliner             // nil: no pipelining
}

// NewClient checks cfg and returns a Client. It makes no request.
func NewClient(cfg Config) (*Client, error) {
	base, err := parseBaseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("upstash: URL: %w", err)
	}
	if err := checkToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("upstash: token: %w", err)
	}
	c := &Client{
		base:       base,
		auth:       "Bearer " + cfg.Token,
		http:       cfg.HTTPClient,
		keyLocking: cfg.KeyLocking,
		maxReply:   cfg.MaxReplyBytes,
		noSync:     cfg.NoSyncToken,
	}
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	if c.maxReply <= 0 {
		c.maxReply = DefaultMaxReplyBytes
	}
	if cfg.Pipelining {
		c.pipe = &pipeliner{c: c}
	}
	return c, nil
}

// defaultHTTPClient is shared by every Client without an HTTPClient, so that
// connections to the same database are reused across clients.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 64
	return &http.Client{
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
})

func parseBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("%q must start with https:// (the REST URL, not the redis:// one)", raw)
	}
	if u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%q: want https://HOST[/PATH] with no credentials, query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
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
	if c.pipe != nil {
		return c.pipe.do(ctx, args)
	}
	return c.send(ctx, args)
}

// send sends one command in a request of its own.
func (c *Client) send(ctx context.Context, args []any) (Reply, error) {
	body, err := encodeCommand(args)
	if err != nil {
		return Reply{}, fmt.Errorf("upstash: %w", err)
	}
	name := commandName(args)
	v, err := c.post(ctx, "", name, body)
	if err != nil {
		return Reply{}, err
	}
	return envelope(v, name)
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

func (c *Client) batch(ctx context.Context, path string, cmds [][]any) ([]Result, error) {
	if len(cmds) == 0 {
		return nil, fmt.Errorf("upstash: %s: no commands", path)
	}
	body, err := encodeBatch(cmds)
	if err != nil {
		return nil, fmt.Errorf("upstash: %s: %w", path, err)
	}
	v, err := c.post(ctx, path, path[1:], body)
	if err != nil {
		return nil, err
	}
	if obj, ok := v.(map[string]any); ok { // the whole batch failed
		_, err := envelope(obj, path[1:])
		if err == nil {
			err = malformed("%s: got one result, want an array", path)
		}
		return nil, err
	}
	items, ok := v.([]any)
	if !ok || len(items) != len(cmds) {
		return nil, malformed("%s: want an array of %d results, got %T", path, len(cmds), v)
	}
	results := make([]Result, len(items))
	for i, item := range items {
		r, err := envelope(item, commandName(cmds[i]))
		var ce *CommandError
		if err != nil && !errors.As(err, &ce) {
			return nil, err // a malformed item makes the whole reply untrustworthy
		}
		results[i] = Result{Reply: r, Err: err}
	}
	return results, nil
}

// post sends one request and returns the decoded JSON of a 200 reply. name
// labels errors. Non-200 statuses become ErrUnauthorized, *CommandError or
// *StatusError.
func (c *Client) post(ctx context.Context, path, name string, body []byte) (any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("upstash: %s: %w", name, err)
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerEncoding, "base64")
	if tok := c.syncToken.Load(); tok != nil && !c.noSync {
		req.Header.Set(headerSyncToken, *tok)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("upstash: %s: %w", name, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxReply+1))
	if err != nil {
		return nil, fmt.Errorf("upstash: %s: reading reply: %w", name, err)
	}
	if int64(len(data)) > c.maxReply {
		return nil, malformed("%s: reply larger than %d bytes", name, c.maxReply)
	}
	if tok := resp.Header.Get(headerSyncToken); tok != "" && !c.noSync {
		c.syncToken.Store(&tok)
	}
	return decodeStatus(resp.StatusCode, data, name)
}
