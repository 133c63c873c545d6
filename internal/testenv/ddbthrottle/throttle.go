package ddbthrottle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Config configures a Throttle. Its zero value means the defaults beside each field.
type Config struct {
	// WriteUnits and ReadUnits are each partition key's capacity per second; 0 means
	// 1,000 and 3,000 (DynamoDB's per-partition limits).
	WriteUnits, ReadUnits float64
	// Burst is how much unused capacity a key keeps, in time at its rate; 0 means 1s.
	Burst time.Duration
	// OnDemand answers as an on-demand table: ThrottlingException, and ThrottlingError
	// in cancelled transactions. The default answers as a provisioned table:
	// ProvisionedThroughputExceededException, and ProvisionedThroughputExceeded.
	OnDemand bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Throttle enforces the capacities of Config. Create it with New; it is safe for
// concurrent use, and one Throttle may serve several transports and proxies (whose
// keys then share their capacity).
type Throttle struct {
	cfg  Config
	mu   sync.Mutex
	keys map[itemKey]*keyState
}

// itemKey names one partition key value of one table.
type itemKey struct{ table, key string }

type keyState struct {
	write, read *rate.Limiter // in half units, so that an eventually consistent read is 1
	stats       Stats
}

// Stats counts requests on one key: what was forwarded, and what was refused for
// capacity.
type Stats struct {
	Writes, Reads                   int64 // requests forwarded (a transaction counts once per item)
	ThrottledWrites, ThrottledReads int64 // requests refused
}

// New returns a Throttle of cfg.
func New(cfg Config) *Throttle {
	if cfg.WriteUnits <= 0 {
		cfg.WriteUnits = 1000
	}
	if cfg.ReadUnits <= 0 {
		cfg.ReadUnits = 3000
	}
	if cfg.Burst <= 0 {
		cfg.Burst = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Throttle{cfg: cfg, keys: map[itemKey]*keyState{}}
}

// Stats returns the counts of one partition key value of table.
func (t *Throttle) Stats(table, key string) Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := t.keys[itemKey{table, key}]; k != nil {
		return k.stats
	}
	return Stats{}
}

// Transport returns an http.RoundTripper that charges each request to t and forwards
// the ones that fit to next (nil means http.DefaultTransport).
func (t *Throttle) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{t: t, next: next}
}

// Proxy returns an http.Handler that forwards every request to target (DynamoDB
// Local's endpoint) through t's Transport: several processes sharing one Throttle.
func (t *Throttle) Proxy(target string) (http.Handler, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	return &httputil.ReverseProxy{
		Rewrite:      func(r *httputil.ProxyRequest) { r.SetURL(u) },
		Transport:    t.Transport(nil),
		ErrorHandler: proxyError,
	}, nil
}

// proxyError answers 502 to a request the proxy could not forward, logging why unless
// the client gave up on it (a request past its deadline: the client's own error says so).
func proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		log.Printf("ddbthrottle: proxy error: %v", err)
	}
	w.WriteHeader(http.StatusBadGateway)
}

type transport struct {
	t    *Throttle
	next http.RoundTripper
}

// RoundTrip charges the request's items and forwards it, or answers the throttling
// error DynamoDB would.
func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	op, ok := strings.CutPrefix(req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	if !ok || req.Body == nil {
		return tr.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	charges, err := parse(op, body)
	if err != nil || len(charges) == 0 { // not ours to judge: DynamoDB Local answers it
		return tr.next.RoundTrip(req)
	}
	if refused := tr.t.admit(charges); refused != nil {
		return tr.t.refusal(req, op, charges, refused), nil
	}
	return tr.next.RoundTrip(req)
}
