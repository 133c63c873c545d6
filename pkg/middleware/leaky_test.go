package middleware_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/middleware"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/redis"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

// counterStores are the counter stores that the tests of settles run on: memory, and
// Redis and Upstash when their services are up (skipped otherwise).
var counterStores = []struct {
	name string
	open func(t *testing.T) store.Counters
}{
	{"memory", func(*testing.T) store.Counters { return memory.NewCounters(memory.CountersConfig{}) }},
	{"redis", func(t *testing.T) store.Counters {
		client, err := redis.NewClient(redis.Config{Addrs: []string{testenv.RedisAddr(t)}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.Close)
		return redis.NewCounters(client, redis.CountersConfig{})
	}},
	{"upstash", func(t *testing.T) store.Counters {
		base, token := testenv.UpstashURL(t)
		client, err := upstashrest.NewClient(upstashrest.Config{URL: base, Token: token})
		if err != nil {
			t.Fatal(err)
		}
		return upstash.NewCounters(client, upstash.CountersConfig{})
	}},
}

// leakyFixture is a middleware with a reservation secret over counters, on a real
// clock that the test moves forward by skip, for tenant acme (under a creation id of
// its own, so that no earlier run's counters on a shared store are its) and its key.
type leakyFixture struct {
	send  func() (int, string)
	skip  atomic.Int64 // µs added to the clock
	slept []time.Duration
	calls atomic.Int64
}

func newLeakyFixture(t *testing.T, tenantJSON string, maxDelay time.Duration, counters store.Counters) *leakyFixture {
	t.Helper()
	id := make([]byte, 8)
	rand.Read(id)
	tenantJSON = strings.Replace(tenantJSON, `"id": "acme"`, `"id": "acme", "creation_id": "`+hex.EncodeToString(id)+`"`, 1)
	tenants, key := seedTenant(t, tenantJSON)
	f := &leakyFixture{}
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: func() int64 { return limiter.Micros(time.Now()) + f.skip.Load() },
		ReservationSecret: bytes.Repeat([]byte("m"), gate.MinSecretBytes)})
	if err != nil {
		t.Fatal(err)
	}
	var settles []error
	mw, err := middleware.New(middleware.Config{Gate: g, MaxDelay: maxDelay,
		Sleep:    func(_ context.Context, d time.Duration) error { f.slept = append(f.slept, d); return nil },
		OnSettle: func(_ gate.SettleResult, err error) { settles = append(settles, err) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, err := range settles {
			if err != nil {
				t.Errorf("a settle failed: %v", err)
			}
		}
	})
	h := mw.APIGatewayProxy(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		f.calls.Add(1)
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	})
	f.send = func() (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		resp, _ := h(ctx, events.APIGatewayProxyRequest{HTTPMethod: "POST", Resource: "/queue", Headers: keyHeaders(key.Reveal())})
		return resp.StatusCode, resp.Body
	}
	return f
}

// TestLeakyDelayNotWaitedHoldsNoSlot: a concurrency rule admits "fewer than limit
// requests in flight: each allowed request holds one slot ... until it is settled ...
// or its lease ends" (docs/reference.md, "Rules"), and the middleware settles once the
// handler returns. A request whose leaky-bucket delay is past MaxDelay is answered 429
// and never reaches the handler; it is not in flight, so it must not keep a slot: once
// the bucket has drained, with nothing in flight, the tenant is admitted again.
func TestLeakyDelayNotWaitedHoldsNoSlot(t *testing.T) {
	for _, cs := range counterStores {
		t.Run(cs.name, func(t *testing.T) {
			f := newLeakyFixture(t, `{"id": "acme", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 2, "lease": "60s"}],
	  "routes": [{"method": "POST", "resource": "/queue", "rules": [{"name": "queue", "algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 5}]}]}`, -1, cs.open(t))
			if got := statuses(f, 3); got != "[200 429 429]" {
				t.Fatalf("three requests at once, MaxDelay -1: %v; want 200 (no delay), then 429 twice (delays of about 100ms, 200ms)", got)
			}
			f.skip.Add((10 * time.Second).Microseconds()) // the bucket has drained; nothing is in flight
			if got, body := f.send(); got != 200 {
				t.Errorf("10 s later, with no request in flight: %d (%s); want 200", got, body)
			}
		})
	}
}

// TestLeakyDelayNotWaitedCountsNothing: a request answered 429 for a delay past
// MaxDelay is settled at cost 0, so the bucket holds only the requests that run. A
// bucket of 1 a second and MaxDelay 1.5 s: of 10 requests at once the first runs, the
// second waits 1 s and runs, the 8 others (2 s each) are answered 429; 0.6 s later a
// request's delay is 1.4 s and it runs. Had the 429s counted, the bucket would hold
// its burst of 5 and that delay would be 4.4 s.
func TestLeakyDelayNotWaitedCountsNothing(t *testing.T) {
	for _, cs := range counterStores {
		t.Run(cs.name, func(t *testing.T) {
			f := newLeakyFixture(t, `{"id": "acme", "rules": [{"name": "minute", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
	  "routes": [{"method": "POST", "resource": "/queue", "rules": [{"name": "queue", "algorithm": "leaky_bucket", "limit": 1, "period": "1s", "burst": 5}]}]}`,
				1500*time.Millisecond, cs.open(t))
			if got := statuses(f, 10); got != "[200 200 429 429 429 429 429 429 429 429]" {
				t.Fatalf("10 requests at once: %v; want 2 run, 8 answered 429", got)
			}
			f.skip.Add((600 * time.Millisecond).Microseconds())
			if got, body := f.send(); got != 200 || len(f.slept) != 2 || f.slept[1] > 1400*time.Millisecond || f.slept[1] < time.Second {
				t.Errorf("0.6 s later: %d (%s), slept %v; want 200 after a delay of at most 1.4 s", got, body, f.slept)
			}
			if n := f.calls.Load(); n != 3 {
				t.Errorf("the handler ran %d times; want 3", n)
			}
		})
	}
}

// statuses sends n requests and returns their statuses.
func statuses(f *leakyFixture, n int) string {
	var out []int
	for range n {
		code, _ := f.send()
		out = append(out, code)
	}
	return fmt.Sprint(out)
}
