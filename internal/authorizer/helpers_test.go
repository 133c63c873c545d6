package authorizer_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// eventsDir holds the sample events, their expected results and their tenants file.
var eventsDir = filepath.Join("..", "..", "events", "authorizer")

// The instant the expected results were written for: 2026-06-01T00:00:00Z.
var testNow = limiter.Micros(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))

// The keys of events/authorizer/tenants.json: the documented demo key (tenant demo,
// fail closed) and partner's (fail open).
const (
	demoKey    = "elk_xxh64u27_TBaYVHqi6DTHa-Wklpz1R9d3Wkuf7AXtXmfyjIqsZ24"
	partnerKey = "elk_partner1_qfqzRw1HYfcMy16vQ2rXQmIGSKmBwT7jFJqYacsAPII"
)

// harness is a Handler over the events' tenants file and a memory counter store, at a
// clock the test moves.
type harness struct {
	h       *authorizer.Handler
	now     int64
	mu      sync.Mutex
	logs    *testenv.Buffer
	metrics *testenv.Buffer
}

func (hs *harness) clock() int64 { hs.mu.Lock(); defer hs.mu.Unlock(); return hs.now }
func (hs *harness) advance(d time.Duration) {
	hs.mu.Lock()
	hs.now += d.Microseconds()
	hs.mu.Unlock()
}

func newHarness(t testing.TB, mode authorizer.HTTPResponse, counters store.Counters) *harness {
	t.Helper()
	return newHarnessTo(t, mode, counters, nil)
}

// newHarnessTo is newHarness with its logs and metrics sent to out (nil: buffers kept
// in the harness).
func newHarnessTo(t testing.TB, mode authorizer.HTTPResponse, counters store.Counters, out io.Writer) *harness {
	t.Helper()
	tenants, err := memory.LoadFile(filepath.Join(eventsDir, "tenants.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if counters == nil {
		counters = memory.NewCounters(memory.CountersConfig{})
	}
	hs := &harness{now: testNow, logs: &testenv.Buffer{}, metrics: &testenv.Buffer{}}
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: hs.clock,
		AnonymousTenant: "public", LatencyBudget: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var logs, metrics io.Writer = hs.logs, hs.metrics
	if out != nil {
		logs, metrics = out, out
	}
	hs.h, err = authorizer.New(authorizer.Config{Gate: g, HTTPResponse: mode,
		Logger: slog.New(slog.NewJSONHandler(logs, nil)), Metrics: metrics})
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

func (hs *harness) invoke(t testing.TB, payload []byte) ([]byte, error) {
	t.Helper()
	return hs.h.Invoke(context.Background(), payload)
}

func gateOf(t testing.TB, hs *harness) *gate.Gate { t.Helper(); return authorizer.GateOf(hs.h) }
