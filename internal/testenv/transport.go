package testenv

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
)

// CountingTransport is an http.RoundTripper that counts the requests it forwards,
// so backend tests can assert how many round trips a decision took.
// The zero value forwards to http.DefaultTransport.
type CountingTransport struct {
	Next http.RoundTripper // the transport to forward to; nil means http.DefaultTransport
	n    atomic.Int64
}

// RoundTrip counts the request and forwards it.
func (c *CountingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	next := c.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(req)
}

// Count returns the number of requests forwarded so far.
func (c *CountingTransport) Count() int64 { return c.n.Load() }

// Reset sets the count back to zero and returns what it was.
func (c *CountingTransport) Reset() int64 { return c.n.Swap(0) }

// CountingProxy is a reverse proxy on 127.0.0.1 in front of an HTTP server, counting
// the requests it forwards: the requests a client really sent, whatever transport the
// client has of its own. Create it with NewCountingProxy.
type CountingProxy struct {
	URL string // the proxy's, to give the client instead of the server's
	n   atomic.Int64
}

// NewCountingProxy starts a CountingProxy in front of target (http://HOST:PORT), stopped
// when t ends.
func NewCountingProxy(t testing.TB, target string) *CountingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &CountingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.n.Add(1)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Count returns the number of requests forwarded so far.
func (p *CountingProxy) Count() int64 { return p.n.Load() }

// Reset sets the count back to zero and returns what it was.
func (p *CountingProxy) Reset() int64 { return p.n.Swap(0) }
