package upstashrest

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// wireServer is an httptest server that counts the connections and requests it
// receives and answers each request with handle.
type wireServer struct {
	*httptest.Server
	conns, requests atomic.Int64
}

func newWireServer(t testing.TB, useTLS bool, handle http.HandlerFunc) *wireServer {
	t.Helper()
	s := newUnstartedWireServer(t, handle)
	if useTLS {
		s.StartTLS()
	} else {
		s.Start()
	}
	return s
}

// newUnstartedWireServer is newWireServer, not yet started (its TLS to set).
func newUnstartedWireServer(t testing.TB, handle http.HandlerFunc) *wireServer {
	t.Helper()
	s := &wireServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		handle(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	t.Cleanup(s.Close)
	return s
}

// wireClient returns a Client of url with a transport of its own, whose clock is now.
func wireClient(t *testing.T, rawURL string, now func() time.Time) *Client {
	t.Helper()
	c, err := NewClient(Config{URL: rawURL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(rawURL)
	c.lean = newTransport(u)
	if now != nil {
		c.lean.now = now
	}
	return c
}

func okReply(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	io.WriteString(w, `{"result":1}`)
}

func wireCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ping(t *testing.T, c *Client) {
	t.Helper()
	if r, err := c.Do(wireCtx(t), "PING"); err != nil || r.n != 1 {
		t.Fatalf("PING: %v, %v", r, err)
	}
}

// Kept-alive connections carry one request after another, over TLS too (1.2 at the
// least), and a reply in chunks (no Content-Length) reads whole.
func TestConnectionsAreReused(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "https"}[useTLS], func(t *testing.T) {
			var version atomic.Uint32
			s := newWireServer(t, useTLS, func(w http.ResponseWriter, r *http.Request) {
				if r.TLS != nil {
					version.Store(uint32(r.TLS.Version))
				}
				io.Copy(io.Discard, r.Body)
				io.WriteString(w, `{"result":`)
				w.(http.Flusher).Flush() // chunked from here on
				io.WriteString(w, `1}`)
			})
			c := wireClient(t, s.URL, nil)
			if useTLS {
				c.lean.tls.RootCAs = s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
			}
			for range 3 {
				ping(t, c)
			}
			if n, r := s.conns.Load(), s.requests.Load(); n != 1 || r != 3 || c.Requests() != 3 {
				t.Errorf("%d connections for %d requests (the client counted %d), want 1 for 3", n, r, c.Requests())
			}
			if useTLS && version.Load() < tls.VersionTLS12 {
				t.Errorf("TLS version %x", version.Load())
			}
		})
	}
}

// A server that closes a kept-alive connection while it is idle: the next request goes
// on a new connection and succeeds.
func TestIdleConnectionTheServerClosedIsNotUsed(t *testing.T) {
	s := newWireServer(t, false, okReply)
	c := wireClient(t, s.URL, nil)
	ping(t, c)
	s.CloseClientConnections() // closes the idle connection, server side
	ping(t, c)
	if n, r := s.conns.Load(), s.requests.Load(); n != 2 || r != 2 {
		t.Errorf("%d connections, %d requests; want 2 and 2", n, r)
	}
}

// A server that reads the request and closes the connection without a reply, on a
// reused connection: an error, and no second request (the command may have run).
func TestServerClosingAfterTheRequestIsAnErrorNotARetry(t *testing.T) {
	var calls atomic.Int64
	s := newWireServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			okReply(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	})
	c := wireClient(t, s.URL, nil)
	ping(t, c)
	_, err := c.Do(wireCtx(t), "INCR", "k")
	if err == nil || !strings.Contains(err.Error(), "INCR") {
		t.Errorf("err = %v, want an error naming INCR", err)
	}
	if r := s.requests.Load(); r != 2 || c.Requests() != 2 {
		t.Errorf("%d requests (the client counted %d), want 2: the client must not retry", r, c.Requests())
	}
}

// A Connection: close answer, an unread (oversized) body, an error and a context that
// ends all leave the connection out of the pool.
func TestConnectionsThatCannotBeTrustedAreDropped(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := newWireServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.Header.Get("Content-Length") {
		case "8": // ["HANG"]
			<-release
		case "9": // ["CLOSE"]
			w.Header().Set("Connection", "close")
			io.WriteString(w, `{"result":1}`)
		default:
			io.WriteString(w, `{"result":"`+strings.Repeat("QUFB", 100)+`"}`)
		}
	})
	c := wireClient(t, s.URL, nil)
	c.maxReply = 100
	if _, err := c.Do(wireCtx(t), "CLOSE"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(wireCtx(t), "BIG"); !errors.Is(err, ErrMalformedReply) || !strings.Contains(err.Error(), "larger than 100 bytes") {
		t.Errorf("an oversized reply: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Do(ctx, "HANG"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a server that hangs: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the deadline of 50ms returned after %v", d)
	}
	if len(c.lean.idle) != 0 || s.conns.Load() != 3 {
		t.Errorf("%d idle connections, %d opened; want 0 and 3 (none reused)", len(c.lean.idle), s.conns.Load())
	}
}

// A canceled context stops a request in flight, and its connection is not reused.
func TestCancelStopsTheRequest(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	arrived := make(chan struct{}, 1)
	s := newWireServer(t, false, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
	})
	c := wireClient(t, s.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	if _, err := c.Do(ctx, "GET", "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if len(c.lean.idle) != 0 {
		t.Errorf("%d idle connections, want 0", len(c.lean.idle))
	}
}

// A connection idle for idleTimeout is closed, not reused.
func TestIdleTimeout(t *testing.T) {
	s := newWireServer(t, false, okReply)
	var mu sync.Mutex
	now := time.Unix(1e9, 0)
	c := wireClient(t, s.URL, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	ping(t, c)
	mu.Lock()
	now = now.Add(idleTimeout - time.Second)
	mu.Unlock()
	ping(t, c)
	if n := s.conns.Load(); n != 1 {
		t.Fatalf("%d connections after an idle time below the timeout, want 1", n)
	}
	mu.Lock()
	now = now.Add(idleTimeout)
	mu.Unlock()
	ping(t, c)
	if n := s.conns.Load(); n != 2 {
		t.Errorf("%d connections after the idle timeout, want 2", n)
	}
}

// failingConn is a connection whose writes fail, having written written bytes.
type failingConn struct {
	net.Conn
	written int
	onWrite func() // if set, called before the write fails
}

func (f *failingConn) Write(p []byte) (int, error) {
	if f.onWrite != nil {
		f.onWrite()
	}
	return f.written, errors.New("broken pipe")
}
func (f *failingConn) Close() error                { return nil }
func (f *failingConn) Read([]byte) (int, error)    { return 0, io.EOF }
func (f *failingConn) SetDeadline(time.Time) error { return nil }

// idleFailing makes fc the one idle connection of c's pool, as if it had carried a
// request before.
func idleFailing(c *Client, fc *failingConn) {
	pc := &pconn{t: c.lean, tcp: fc, nc: fc, reused: true}
	pc.head.c = fc
	pc.br = bufio.NewReader(&pc.head)
	pc.abortFn = pc.abort
	c.lean.idle = []*pconn{pc}
	c.lean.now = func() time.Time { return pc.idleAt }
}

// A reused connection whose write fails with nothing written: the request goes again,
// once, on a new connection. With part of it written, it is an error and goes no more.
func TestOnlyAnUnwrittenRequestGoesAgain(t *testing.T) {
	for _, written := range []int{0, 10} {
		s := newWireServer(t, false, okReply)
		c := wireClient(t, s.URL, nil)
		idleFailing(c, &failingConn{written: written})
		_, err := c.Do(wireCtx(t), "INCR", "k")
		var wantAtServer int64 // the fake connection delivers nothing
		if written == 0 {
			wantAtServer = 1
		}
		if r := s.requests.Load(); r != wantAtServer || c.Requests() != 1 || (err == nil) != (written == 0) {
			t.Errorf("%d bytes written: err %v, %d requests at the server (the client counted %d), want %d (and 1)",
				written, err, r, c.Requests(), wantAtServer)
		}
	}
}

// A write that fails with nothing written while the call's context ends: the error is
// the context's, the request is not counted as sent, and it does not go again.
func TestAnUnwrittenRequestWhoseContextEndedIsNotCounted(t *testing.T) {
	s := newWireServer(t, false, okReply)
	c := wireClient(t, s.URL, nil)
	ctx, cancel := context.WithCancel(wireCtx(t))
	idleFailing(c, &failingConn{onWrite: cancel})
	_, err := c.Do(ctx, "INCR", "k")
	if !errors.Is(err, context.Canceled) || c.Requests() != 0 || s.requests.Load() != 0 {
		t.Errorf("err %v, the client counted %d requests, the server %d; want context.Canceled, 0 and 0",
			err, c.Requests(), s.requests.Load())
	}
}

// rawServer answers every connection with reply, whatever it is sent.
func rawServer(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.Read(make([]byte, 4096))
				io.WriteString(conn, reply)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// Answers that are not HTTP, or whose head is beyond the cap, are clear errors.
func TestAnswersThatAreNotHTTP(t *testing.T) {
	for _, tc := range []struct{ name, reply, want string }{
		{"garbage", "hello, world\r\n\r\n", "malformed HTTP"},
		{"head too long", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", maxReplyHeadBytes) + "\r\n\r\n", "longer than 1048576 bytes"},
		{"truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"result\"", "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := wireClient(t, rawServer(t, tc.reply), nil)
			if _, err := c.Do(wireCtx(t), "GET", "k"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// When the environment names a proxy for the URL, the client sends through net/http,
// which goes through it.
func TestAProxyInTheEnvironmentIsUsed(t *testing.T) {
	var target string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target = r.URL.String() // a proxy is sent the absolute URL
		okReply(w, r)
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	defer func(f func(*http.Request) (*url.URL, error)) { proxyFor = f }(proxyFor)
	proxyFor = func(r *http.Request) (*url.URL, error) {
		if r.URL.Host == "upstash.invalid" {
			return proxyURL, nil
		}
		return nil, nil
	}
	c, err := NewClient(Config{URL: "http://upstash.invalid", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if c.lean != nil {
		t.Fatal("the client has the connection pool, which cannot use a proxy")
	}
	ping(t, c)
	if target != "http://upstash.invalid" && target != "http://upstash.invalid/" {
		t.Errorf("the proxy was asked for %q", target)
	}
}

// blockingCloseConn is a connection whose Close, as tls.Conn's may while it writes
// close_notify, waits: it says it started on closing and returns once release is closed.
type blockingCloseConn struct {
	net.Conn
	closing chan struct{}
	release chan struct{}
}

func (b *blockingCloseConn) Close() error {
	close(b.closing)
	<-b.release
	return nil
}

// put closes the stale idle connections it finds after letting go of the pool's lock:
// a Close that blocks stalls no other caller.
func TestPutClosesStaleConnectionsUnlocked(t *testing.T) {
	now := time.Unix(1e9, 0)
	tr := newTransport(&url.URL{Scheme: "http", Host: "upstash.invalid"})
	tr.now = func() time.Time { return now }
	bc := &blockingCloseConn{closing: make(chan struct{}), release: make(chan struct{})}
	defer close(bc.release)
	tr.idle = []*pconn{{t: tr, tcp: bc, nc: bc, idleAt: now.Add(-idleTimeout)}}
	fresh := &pconn{t: tr}
	go tr.put(fresh)
	<-bc.closing
	if !tr.mu.TryLock() {
		t.Fatal("put holds the pool's lock while it closes a stale connection")
	}
	idle := tr.idle
	tr.mu.Unlock()
	if len(idle) != 1 || idle[0] != fresh {
		t.Errorf("idle = %v, want only the connection put", idle)
	}
}
