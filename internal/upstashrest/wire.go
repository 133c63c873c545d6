package upstashrest

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"
)

// The connection pool's settings.
const (
	// idleTimeout is how long a kept-alive connection may wait unused before the pool
	// closes it instead of reusing it. Upstash does not document when its REST
	// endpoint closes idle connections; 30 s stays below the 60 s idle timeout of
	// common load balancers (AWS's ALB and NLB defaults among them). A connection the
	// server closed sooner is found closed before it is used (see pconn.alive).
	idleTimeout = 30 * time.Second

	// maxIdleConns is how many idle connections the pool keeps per host: as many as
	// the calls a process usually has in flight at once, so that none dials (a TLS
	// handshake) in the steady state. Beyond it, a connection is closed after its
	// reply.
	maxIdleConns = 64

	// maxReplyHeadBytes caps the status line and headers of an answer; a longer head
	// is an error.
	maxReplyHeadBytes = 1 << 20

	dialTimeout  = 30 * time.Second // as http.DefaultTransport's
	tcpKeepAlive = 30 * time.Second
)

// transport is the connection pool of the Clients of one scheme and host: kept-alive
// HTTP/1.1 connections (over TLS 1.2 or later for https), each carrying one request at
// a time. A request is written whole, from one buffer, and its answer read with
// http.ReadResponse, so the status line, headers, Content-Length, chunked bodies and
// Connection: close are net/http's own parser's business.
type transport struct {
	addr string      // host:port to dial
	host string      // the Host header
	tls  *tls.Config // nil for http
	now  func() time.Time

	mu   sync.Mutex
	idle []*pconn // the most recently used last
}

var transports struct {
	sync.Mutex
	m map[string]*transport
}

// sharedTransport returns the transport for u's scheme and host, shared by every
// Client of that database so that they reuse each other's connections.
func sharedTransport(u *url.URL) *transport {
	key := u.Scheme + "://" + u.Host
	transports.Lock()
	defer transports.Unlock()
	if t := transports.m[key]; t != nil {
		return t
	}
	if transports.m == nil {
		transports.m = map[string]*transport{}
	}
	t := newTransport(u)
	transports.m[key] = t
	return t
}

func newTransport(u *url.URL) *transport {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	t := &transport{addr: net.JoinHostPort(u.Hostname(), port), host: u.Host, now: time.Now}
	if u.Scheme == "https" {
		t.tls = &tls.Config{
			ServerName:         u.Hostname(),
			MinVersion:         tls.VersionTLS12,
			NextProtos:         []string{"http/1.1"},
			ClientSessionCache: tls.NewLRUClientSessionCache(0),
		}
	}
	return t
}

// pastDeadline is a read deadline already past: see alive.
var pastDeadline = time.Unix(1, 0)

// postRequest is what http.ReadResponse is told it answers: a POST (it reads only the
// method).
var postRequest = &http.Request{Method: http.MethodPost}

// roundTrip writes req, a whole HTTP/1.1 request, and returns the answer's status and
// upstash-sync-token, its body read into rb (at most max bytes, or errReplyTooLarge).
// sent reports whether any of req was written.
//
// The request goes once. The one exception is a connection from the pool that fails
// before a single byte of the request is written (the write itself fails with nothing
// written): the server cannot have seen the request, so it goes again, once, on a new
// connection. A connection the server closed while it was idle is found so before the
// write (alive) and never used. Whatever happens once a byte is written is the
// caller's error, never a second request: the server may have run the command.
func (t *transport) roundTrip(ctx context.Context, req []byte, rb *buffer, max int64) (status int, tok string, sent bool, err error) {
	if err := ctx.Err(); err != nil {
		return 0, "", false, err
	}
	for fresh := false; ; fresh = true {
		pc, err := t.conn(ctx, fresh)
		if err != nil {
			return 0, "", false, err
		}
		var nothing bool
		status, tok, nothing, err = pc.roundTrip(ctx, req, rb, max)
		if nothing && pc.reused && !fresh && ctx.Err() == nil {
			continue
		}
		return status, tok, !nothing, err
	}
}

// conn returns an idle connection, or a new one when fresh is set or none is left,
// with ctx's deadline set.
func (t *transport) conn(ctx context.Context, fresh bool) (*pconn, error) {
	deadline, _ := ctx.Deadline()
	for !fresh {
		pc := t.takeIdle()
		if pc == nil {
			break
		}
		if pc.alive() && pc.tcp.SetDeadline(deadline) == nil {
			return pc, nil
		}
		pc.close()
	}
	pc, err := t.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", t.host, err)
	}
	if err := pc.tcp.SetDeadline(deadline); err != nil {
		pc.close()
		return nil, err
	}
	return pc, nil
}

// takeIdle removes the most recently used idle connection from the pool and returns
// it, or nil. When that one has been idle longer than idleTimeout, so have all the
// others: it closes them all and returns nil.
func (t *transport) takeIdle() *pconn {
	t.mu.Lock()
	if len(t.idle) == 0 {
		t.mu.Unlock()
		return nil
	}
	pc := t.idle[len(t.idle)-1]
	if t.now().Sub(pc.idleAt) < idleTimeout {
		t.idle[len(t.idle)-1] = nil
		t.idle = t.idle[:len(t.idle)-1]
		t.mu.Unlock()
		return pc
	}
	stale := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, pc := range stale {
		pc.close()
	}
	return nil
}

// put returns pc to the pool, first closing those idle longer than idleTimeout; or
// closes pc when the pool is full.
func (t *transport) put(pc *pconn) {
	now := t.now()
	pc.idleAt, pc.reused = now, true
	var stale [maxIdleConns]*pconn // closed once the lock is released: a TLS close writes
	t.mu.Lock()
	n := 0
	for n < len(t.idle) && now.Sub(t.idle[n].idleAt) >= idleTimeout {
		stale[n] = t.idle[n]
		n++
	}
	if n > 0 {
		kept := copy(t.idle, t.idle[n:])
		clear(t.idle[kept:])
		t.idle = t.idle[:kept]
	}
	full := len(t.idle) >= maxIdleConns
	if !full {
		t.idle = append(t.idle, pc)
	}
	t.mu.Unlock()
	for _, s := range stale[:n] {
		s.close()
	}
	if full {
		pc.close()
	}
}

// dial opens a connection: TCP, then the TLS handshake for https.
func (t *transport) dial(ctx context.Context) (*pconn, error) {
	d := net.Dialer{Timeout: dialTimeout, KeepAlive: tcpKeepAlive}
	tcp, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	pc := &pconn{t: t, tcp: tcp, nc: tcp}
	if sc, ok := tcp.(syscall.Conn); ok {
		pc.raw, _ = sc.SyscallConn()
	}
	if t.tls != nil {
		tc := tls.Client(tcp, t.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			tcp.Close()
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		pc.nc = tc
	}
	pc.head.c = pc.nc
	pc.br = bufio.NewReader(&pc.head)
	pc.peekFn, pc.abortFn = pc.peek, pc.abort
	return pc, nil
}

// pconn is one connection of the pool.
type pconn struct {
	t      *transport
	tcp    net.Conn        // the TCP connection
	nc     net.Conn        // what requests go over: tcp, or TLS over it
	raw    syscall.RawConn // tcp's, for alive; nil when it has none
	head   headReader      // nc, capped while a head is read
	br     *bufio.Reader   // over head
	idleAt time.Time       // when it went back to the pool
	reused bool            // it has carried a request before

	peekFn  func(fd uintptr) bool // peek, made once
	abortFn func()                // abort, made once
	peekErr error
	peekBuf [1]byte
}

// nothingWritten is a write error before any byte of the request left.
type nothingWritten struct{ err error }

func (e nothingWritten) Error() string { return "writing the request: " + e.err.Error() }
func (e nothingWritten) Unwrap() error { return e.err }

// roundTrip sends req on pc and reads the answer. The connection goes back to the pool
// when the exchange ends cleanly, with the whole body read and no Connection: close;
// otherwise it is closed. When ctx ends first, the connection is closed, which stops
// the exchange, and the error is ctx's. nothing reports a write that failed before a
// byte of req left, whatever the error says.
func (pc *pconn) roundTrip(ctx context.Context, req []byte, rb *buffer, max int64) (status int, tok string, nothing bool, err error) {
	var stop func() bool
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, pc.abortFn)
	}
	status, tok, keep, err := pc.exchange(req, rb, max)
	if stop != nil && !stop() { // abort ran, or is running: pc is closed
		keep = false
	}
	if err != nil {
		pc.close()
		_, nothing = err.(nothingWritten)
		return 0, "", nothing, contextError(ctx, err)
	}
	if keep {
		pc.t.put(pc)
	} else {
		pc.close()
	}
	return status, tok, false, nil
}

// exchange writes req and reads the answer; keep reports whether the connection may
// carry another request.
func (pc *pconn) exchange(req []byte, rb *buffer, max int64) (status int, tok string, keep bool, err error) {
	if n, err := pc.nc.Write(req); err != nil {
		if n == 0 {
			return 0, "", false, nothingWritten{err}
		}
		return 0, "", false, fmt.Errorf("writing the request: %w", err)
	}
	pc.head.left = maxReplyHeadBytes
	resp, err := http.ReadResponse(pc.br, postRequest)
	pc.head.left = math.MaxInt64
	if err != nil {
		return 0, "", false, fmt.Errorf("reading the reply: %w", err)
	}
	if rb.data, err = readBody(rb.data[:0], resp.Body, max); err != nil {
		return 0, "", false, err // the rest of the body is unread: the connection goes
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get(headerSyncToken), !resp.Close, nil
}

// contextError returns ctx's error when it has ended, or when err is the connection's
// deadline (ctx's) passing before ctx noticed; otherwise err.
func contextError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if _, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}

// alive reports whether an idle connection may carry a request: nothing has arrived
// on it since its last answer. A server that closed it while it was idle has sent its
// FIN (or, over TLS, a close_notify alert first), which a non-blocking peek at the
// socket sees; anything else arriving unasked is no better. Over TLS, crypto/tls may
// already hold such a record, read from the socket with the last answer: a read with
// a deadline already past hands over what it holds and touches the socket no more (a
// timed-out read leaves a tls.Conn usable). Where the socket cannot be peeked at (see
// peek), it is taken as alive.
func (pc *pconn) alive() bool {
	if pc.br.Buffered() > 0 {
		return false
	}
	if pc.raw != nil && canPeek {
		if err := pc.raw.Read(pc.peekFn); err != nil {
			return false
		}
		if pc.peekErr != syscall.EAGAIN && pc.peekErr != syscall.EWOULDBLOCK {
			return false
		}
	}
	if pc.nc != pc.tcp { // after the peek, which the past deadline would stop
		if pc.nc.SetReadDeadline(pastDeadline) != nil {
			return false
		}
		if _, err := pc.br.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
			return false // a record (close_notify, or bytes unasked), or a dead session
		}
		return pc.nc.SetReadDeadline(time.Time{}) == nil
	}
	return true
}

// abort closes the TCP connection under a request whose context ended.
func (pc *pconn) abort() { pc.tcp.Close() }

func (pc *pconn) close() { pc.nc.Close() }

// headReader reads from c, at most left bytes: the cap on an answer's head.
type headReader struct {
	c    net.Conn
	left int64
}

var errHeadTooLarge = fmt.Errorf("status line and headers longer than %d bytes", maxReplyHeadBytes)

func (h *headReader) Read(p []byte) (int, error) {
	if h.left <= 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.c.Read(p)
	h.left -= int64(n)
	return n, err
}
