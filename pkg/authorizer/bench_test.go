package authorizer_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/authorizer"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// benchHandler returns a handler over memory stores holding a tenant whose bucket
// never runs dry at one request per microsecond, its key, and the clock it reads.
func benchHandler(b *testing.B, limit int64) (*authorizer.Handler, string, *int64) {
	b.Helper()
	tenants := memory.NewTenants()
	t, err := tenant.Decode([]byte(`{"id": "bench", "rules": [{"name": "burst", "algorithm": "token_bucket", "limit": ` +
		jsonInt(limit) + `, "period": "1s"}, {"name": "daily", "algorithm": "fixed_window", "limit": 1000000, "period": "day"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tenants.Create(context.Background(), t); err != nil {
		b.Fatal(err)
	}
	key, rec := apikey.Generate("bench", testNow)
	if err := tenants.PutKey(context.Background(), rec); err != nil {
		b.Fatal(err)
	}
	now := testNow
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return now }})
	if err != nil {
		b.Fatal(err)
	}
	h, err := authorizer.New(authorizer.Config{Gate: g, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Metrics: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	return h, key.Reveal(), &now
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func restPayload(b *testing.B, key string) []byte {
	b.Helper()
	ev := restEvent(b, "rest-valid-key")
	ev.Headers["X-Api-Key"] = key
	ev.MultiValueHeaders = nil
	p, err := json.Marshal(ev)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkInvokeWarm is the warm path of an allowed request on the memory backend:
// the raw event in, the JSON response out, with the log line and the EMF document.
func BenchmarkInvokeWarm(b *testing.B) {
	h, key, now := benchHandler(b, 1_000_000)
	payload := restPayload(b, key)
	ctx := context.Background()
	if _, err := h.Invoke(ctx, payload); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		*now++
		if _, err := h.Invoke(ctx, payload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeDenied is a request answered by the denial cache: no store call.
func BenchmarkInvokeDenied(b *testing.B) {
	h, key, _ := benchHandler(b, 1)
	payload := restPayload(b, key)
	ctx := context.Background()
	h.Invoke(ctx, payload)
	h.Invoke(ctx, payload)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Invoke(ctx, payload); err != nil {
			b.Fatal(err)
		}
	}
}
