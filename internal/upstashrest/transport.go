package upstashrest

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"
)

// The settings of the transport every Client without Config.HTTPClient shares.
const (
	// idleTimeout is how long a kept-alive connection may wait unused before it is
	// closed rather than reused. Upstash does not document when its REST endpoint
	// closes idle connections; 30 s stays below the 60 s idle timeout of common load
	// balancers (AWS's ALB and NLB defaults among them).
	idleTimeout = 30 * time.Second

	// maxIdleConnsPerHost is how many idle connections are kept per host: as many as
	// the calls a process usually has in flight at once, so that none dials (a TLS
	// handshake) in the steady state.
	maxIdleConnsPerHost = 64

	// maxReplyHeadBytes caps the status line and headers of an answer.
	maxReplyHeadBytes = 1 << 20
)

// newTransport returns the http.Transport of the Clients without Config.HTTPClient:
// http.DefaultTransport's settings (the environment's proxy, 30 s dial timeout and
// TCP keep-alive), HTTP/2 when the server offers it over TLS (ForceAttemptHTTP2, which
// a TLS config of our own would otherwise turn off), TLS 1.2 or later, and the idle
// limits above. It has no overall timeout: each call's context bounds its request.
func newTransport() *http.Transport {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           4 * maxIdleConnsPerHost,
		MaxIdleConnsPerHost:    maxIdleConnsPerHost,
		IdleConnTimeout:        idleTimeout,
		MaxResponseHeaderBytes: maxReplyHeadBytes,
		ExpectContinueTimeout:  time.Second,
	}
}

// defaultHTTPClient sends for every Client without Config.HTTPClient, so that the
// Clients of one database share their connections. Redirects are not followed (they
// surface as a *StatusError).
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	return &http.Client{Transport: newTransport(), CheckRedirect: noRedirects}
})

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
