package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

// DefaultDialTimeout bounds one connection attempt when Config.DialTimeout is zero.
const DefaultDialTimeout = time.Second

// DefaultPasswordRefreshInterval is the least time between two calls of
// Config.RefreshPassword when Config.PasswordRefreshInterval is zero.
const DefaultPasswordRefreshInterval = time.Minute

// Config configures a Client. Addrs is required; the zero values of the other fields
// mean the defaults written beside them.
type Config struct {
	// Addrs are host:port of the server, or of one or more nodes of a cluster (the
	// client learns the others).
	Addrs []string
	// Cluster speaks the Redis Cluster protocol (ElastiCache cluster mode, ElastiCache
	// Serverless, MemoryDB): slots, MOVED and ASK redirections. False sends every
	// command to Addrs[0].
	Cluster bool
	// TLS, when set, encrypts every connection (ElastiCache in-transit encryption,
	// MemoryDB, ElastiCache Serverless). Nil means plain TCP.
	TLS *tls.Config
	// Username and Password authenticate each connection (AUTH [username] password):
	// an ElastiCache AUTH token is a Password with no Username; an ACL user has both.
	Username, Password string
	// RefreshPassword, when set, reads the password again (from where it came: a
	// Secrets Manager secret, say) after the server refuses a connection's AUTH
	// (WRONGPASS or NOAUTH), in the background and at most once per
	// PasswordRefreshInterval; the connections opened afterwards authenticate with the
	// password it returned, so that a rotated token is found without a new Client. Nil
	// keeps Password for the Client's life.
	RefreshPassword func(ctx context.Context) (string, error)
	// PasswordRefreshInterval is the least time between two calls of RefreshPassword;
	// 0 means DefaultPasswordRefreshInterval.
	PasswordRefreshInterval time.Duration
	// DialTimeout bounds one connection attempt, TLS and AUTH included; 0 means
	// DefaultDialTimeout. Commands are bounded by their context alone.
	DialTimeout time.Duration
	// Dial opens the TCP connection to addr (TLS, when set, runs over it); nil means a
	// net.Dialer. For tests and proxies.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
}

// Client is one pool of connections to Redis or Valkey, shared by Counters and
// Tenants: create it once per process (at a Lambda function's init) and reuse it
// across invocations. It is safe for concurrent use.
//
// It never retries a command: a command whose reply was lost may have run, and a
// rate-limit script run twice consumes twice. Redirections of a cluster (MOVED, ASK)
// are followed, since a redirected command did not run. Concurrent commands share
// connections (rueidis pipelines them), and each honours its context's deadline.
type Client struct {
	opt     rueidis.ClientOption
	cluster bool
	conn    atomic.Pointer[rueidis.Client]
	dialing chan struct{}    // holds a token while a connection attempt runs
	auth    *passwordRenewal // nil: the password of Config is kept
}

// NewClient checks cfg and returns a Client. It connects at once, so that the first
// command finds its connection ready; when the server cannot be reached, the Client
// is returned all the same and connects on its first command (that command fails
// when the server is still unreachable within its context).
func NewClient(cfg Config) (*Client, error) {
	if err := checkAddrs(cfg.Addrs); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	c := &Client{cluster: cfg.Cluster, dialing: make(chan struct{}, 1), opt: rueidis.ClientOption{
		InitAddress:       cfg.Addrs,
		ForceSingleClient: !cfg.Cluster,
		TLSConfig:         cfg.TLS,
		Username:          cfg.Username,
		Password:          cfg.Password,
		ClientName:        "edgelimit",
		Dialer:            net.Dialer{Timeout: timeout},
		DisableRetry:      true, // a retry after a lost reply would consume twice
		DisableCache:      true, // no client-side caching: every read goes to the server
	}}
	if cfg.RefreshPassword != nil {
		c.auth = newPasswordRenewal(cfg)
		c.opt.AuthCredentialsFn = c.auth.credentials
	}
	if cfg.Dial != nil {
		c.opt.DialCtxFn = func(ctx context.Context, addr string, _ *net.Dialer, tc *tls.Config) (net.Conn, error) {
			return dialWith(ctx, cfg.Dial, addr, tc)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c.connect(ctx) // an error here is the first command's to report
	return c, nil
}

// ParseAddrs reads a comma-separated list of host:port, as EDGELIMIT_REDIS_ADDR holds
// it ("127.0.0.1:6379", or a cluster's nodes "a:6379,b:6379").
func ParseAddrs(s string) ([]string, error) {
	var addrs []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs, checkAddrs(addrs)
}

func checkAddrs(addrs []string) error {
	if len(addrs) == 0 {
		return errors.New("no address: want host:port")
	}
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" || port == "" || strings.ContainsAny(a, "/ ") {
			return fmt.Errorf("address %q: want host:port (no scheme)", a)
		}
	}
	return nil
}

// dialWith opens a connection with dial, and runs the TLS handshake over it when tc
// is set.
func dialWith(ctx context.Context, dial func(context.Context, string) (net.Conn, error), addr string, tc *tls.Config) (net.Conn, error) {
	conn, err := dial(ctx, addr)
	if err != nil || tc == nil {
		return conn, err
	}
	if tc.ServerName == "" {
		tc = tc.Clone()
		tc.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tconn := tls.Client(conn, tc)
	if err := tconn.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tconn, nil
}

// connect returns the connected rueidis client, connecting first when no attempt has
// succeeded yet. One attempt runs at a time; a caller whose context ends first gets
// its context's error.
func (c *Client) connect(ctx context.Context) (rueidis.Client, error) {
	if p := c.conn.Load(); p != nil {
		return *p, nil
	}
	select {
	case c.dialing <- struct{}{}:
		defer func() { <-c.dialing }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p := c.conn.Load(); p != nil {
		return *p, nil
	}
	opt := c.opt
	if d, ok := ctx.Deadline(); ok {
		opt.Dialer.Timeout = min(opt.Dialer.Timeout, max(time.Until(d), time.Millisecond))
	}
	rc, err := rueidis.NewClient(opt)
	if err != nil {
		c.auth.refused(err)
		return nil, fmt.Errorf("redis: connect to %s: %w", strings.Join(c.opt.InitAddress, ","), err)
	}
	c.conn.Store(&rc)
	return rc, nil
}

// Close closes the connections. The Client must not be used afterwards.
func (c *Client) Close() {
	if p := c.conn.Load(); p != nil {
		(*p).Close()
	}
}

// Do sends one command, built by build from the client's command builder, and returns
// its result.
func (c *Client) Do(ctx context.Context, build func(rueidis.Builder) rueidis.Completed) rueidis.RedisResult {
	rc, err := c.connect(ctx)
	if err != nil {
		return rueidis.NewErrorResult(err)
	}
	r := rc.Do(ctx, build(rc.B()))
	c.auth.refused(r.Error())
	return r
}

// DoMulti sends the commands that build returns in one write (a pipeline, or a
// MULTI ... EXEC transaction when they are framed by MULTI and EXEC), and returns one
// result per command. The error is a failure to connect, when nothing was sent.
func (c *Client) DoMulti(ctx context.Context, build func(rueidis.Builder) []rueidis.Completed) ([]rueidis.RedisResult, error) {
	rc, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	results := rc.DoMulti(ctx, build(rc.B())...)
	if len(results) > 0 {
		c.auth.refused(results[0].Error()) // a refused connection fails every command alike
	}
	return results, nil
}

// Eval runs script with EVALSHA, and when the server answers NOSCRIPT (its script
// cache does not hold it), with EVAL and the script's text: one round trip when the
// cache is warm, two when it is cold. The fallback is not a retry: NOSCRIPT means the
// script did not run. Every key the script touches must be in keys; on a cluster they
// must share one hash slot.
func (c *Client) Eval(ctx context.Context, script *luascript.Script, keys, args []string) rueidis.RedisResult {
	rc, err := c.connect(ctx)
	if err != nil {
		return rueidis.NewErrorResult(err)
	}
	r := rc.Do(ctx, rc.B().Evalsha().Sha1(script.SHA1(false)).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
	if e, ok := rueidis.IsRedisErr(r.Error()); !ok || !e.IsNoScript() {
		c.auth.refused(r.Error())
		return r
	}
	return rc.Do(ctx, rc.B().Eval().Script(script.Text(false)).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build())
}

// passwordRenewal holds the password new connections authenticate with, and reads it
// again (Config.RefreshPassword) after the server refuses it, at most once per
// interval.
type passwordRenewal struct {
	username string
	password atomic.Pointer[string]
	read     func(context.Context) (string, error)
	every    time.Duration

	mu   sync.Mutex
	last time.Time // when read last started; zero: never
}

// passwordReadTimeout bounds one call of Config.RefreshPassword, which runs apart from
// the command whose refusal started it: the password it reads serves the next
// connections.
const passwordReadTimeout = 10 * time.Second

func newPasswordRenewal(cfg Config) *passwordRenewal {
	r := &passwordRenewal{username: cfg.Username, read: cfg.RefreshPassword, every: cfg.PasswordRefreshInterval}
	if r.every <= 0 {
		r.every = DefaultPasswordRefreshInterval
	}
	r.password.Store(&cfg.Password)
	return r
}

// credentials is rueidis's AuthCredentialsFn, called for each new connection: the
// current password.
func (r *passwordRenewal) credentials(rueidis.AuthCredentialsContext) (rueidis.AuthCredentials, error) {
	return rueidis.AuthCredentials{Username: r.username, Password: *r.password.Load()}, nil
}

// refused starts a read of the password in the background when err is the server's
// refusal of AUTH and no read started within the interval. A nil r does nothing.
func (r *passwordRenewal) refused(err error) {
	if r == nil || !isAuthRefusal(err) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < r.every {
		return
	}
	r.last = now
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), passwordReadTimeout)
		defer cancel()
		if p, err := r.read(ctx); err == nil && p != "" {
			r.password.Store(&p)
		}
	}()
}

// isAuthRefusal reports whether err is the server's answer to a wrong password
// (WRONGPASS) or to none (NOAUTH).
func isAuthRefusal(err error) bool {
	var e *rueidis.RedisError
	if !errors.As(err, &e) {
		return false
	}
	msg := e.Error()
	return strings.HasPrefix(msg, "WRONGPASS") || strings.HasPrefix(msg, "NOAUTH")
}
