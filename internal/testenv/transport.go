package testenv

import (
	"net/http"
	"sync/atomic"
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
