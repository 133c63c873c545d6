package upstashrest_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashlocal"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

// countedServer serves h on a real loopback listener and counts the TCP connections
// it accepts.
func countedServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// Regression (a pooled connection kept its last call's deadline, so after a gap longer
// than the budget it was found "dead" and another dialled: 8 requests 150 ms apart
// under a 100 ms budget opened 8): production's budget per call, idle gaps longer than
// it, against upstash-local, at most one TCP connection, and one more for each request
// that a loaded machine answered after its deadline (net/http closes that connection).
func TestIdleGapsLongerThanTheBudgetReuseOneConnection(t *testing.T) {
	local, err := upstashlocal.New(upstashlocal.Config{RedisAddr: testenv.RedisAddr(t), Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	srv, conns := countedServer(t, local)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(150 * time.Millisecond)
	defer tick.Stop()
	late := 0 // requests that missed their deadline: net/http closes their connection
	for i := range 8 {
		if i > 0 {
			<-tick.C
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := c.Do(ctx, "PING")
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			late++ // a machine too loaded to answer in 100 ms, not the bug
		case err != nil:
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if late > 4 {
		t.Fatalf("%d of 8 requests missed their 100 ms deadline: the machine is too loaded to tell", late)
	}
	if n := conns.Load(); n > int64(1+late) {
		t.Errorf("8 requests 150 ms apart under a 100 ms budget (%d of them late) opened %d TCP connections, want %d", late, n, 1+late)
	}
}

// A server that reads the request on a reused keep-alive connection and closes it
// without answering: the command may have run, so the client returns an error and the
// server has seen it once.
func TestReusedConnectionClosedAfterTheRequestIsAnError(t *testing.T) {
	var seen atomic.Int64
	srv, conns := countedServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if seen.Add(1) == 1 {
			io.WriteString(w, `{"result":"PONG"}`)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(testCtx(t), "PING"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(testCtx(t), "INCR", "k"); err == nil {
		t.Fatal("INCR answered by a closed connection: nil error, want one")
	}
	if n := seen.Load(); n != 2 || conns.Load() != 1 {
		t.Errorf("the server saw %d requests on %d connections, want 2 on 1: the INCR once", n, conns.Load())
	}
}

// failingConn is a connection the server closed while it was idle, as the client
// finds it when it writes: after its first answer, a write fails with nothing written.
type failingConn struct {
	net.Conn
	mu      sync.Mutex
	reads   bool // a reply was read: the next write finds the connection closed
	written bool
}

func (c *failingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.reads = c.reads || (n > 0 && c.written)
	c.mu.Unlock()
	return n, err
}

func (c *failingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	closed := c.reads
	c.written = true
	c.mu.Unlock()
	if closed {
		c.Conn.Close()
		return 0, errors.New("write: broken pipe")
	}
	return c.Conn.Write(p)
}

// A connection the server closed while idle, found so when the request is written
// (nothing of it written): net/http sends it on a new connection, and the command
// runs once.
func TestIdleConnectionClosedBeforeTheWriteGoesOnANewOne(t *testing.T) {
	var seen atomic.Int64
	srv, conns := countedServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		seen.Add(1)
		io.WriteString(w, `{"result":1}`)
	}))
	tr := upstashrest.NewTestTransport()
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &failingConn{Conn: conn}, nil
	}
	c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: testToken, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		r, err := c.Do(testCtx(t), "INCR", "k")
		if n, _ := r.Int64(); err != nil || n != 1 {
			t.Fatalf("INCR %d: %v, %v", i, r, err)
		}
	}
	if n := seen.Load(); n != 2 || conns.Load() != 2 {
		t.Errorf("the server saw %d requests on %d connections, want 2 on 2: each INCR once", n, conns.Load())
	}
}

// Over TLS, a server that offers HTTP/2 is spoken HTTP/2.
func TestHTTP2WhenTheServerOffersIt(t *testing.T) {
	var proto atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(int64(r.ProtoMajor))
		io.WriteString(w, `{"result":"PONG"}`)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tr := upstashrest.NewTestTransport()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: testToken, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(testCtx(t), "PING"); err != nil {
		t.Fatal(err)
	}
	if p := proto.Load(); p != 2 {
		t.Errorf("the request came in HTTP/%d, want HTTP/2", p)
	}
}
