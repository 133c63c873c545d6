package headers_test

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestTokenHeaders: a rule marked "unit": "tokens" adds OpenAI's x-ratelimit-*-tokens
// fields beside the others, on an allowed answer and on a 429 (from the store and from
// the denial cache); a tenant without one gets none.
func TestTokenHeaders(t *testing.T) {
	at := limiter.Micros(time.Date(2026, 6, 1, 12, 0, 54, 0, time.UTC)) // 6 s before the minute ends
	g, key := tokenGate(t, at, `{"id": "llm", "rules": [{"name": "tph", "algorithm": "fixed_window", "limit": 1000000, "period": "1h", "unit": "tokens"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 40000,
	    "rules": [{"name": "tpm", "algorithm": "fixed_window", "limit": 100000, "period": "1m", "unit": "tokens"}]}]}`)
	steps := []struct {
		status                   int
		limit, remaining, resetS string
	}{
		{0, "100000", "60000", "6s"},
		{0, "100000", "20000", "6s"},
		{429, "100000", "20000", "6s"}, // the store's denial
		{429, "100000", "20000", "6s"}, // the denial cache's
	}
	for i, s := range steps {
		res, err := g.Check(context.Background(), gate.Request{APIKey: key, Method: "POST", Resource: "/chat"})
		if err != nil {
			t.Fatal(err)
		}
		a := headers.For(res, "x-api-key")
		got := [3]string{a.Header.Get("x-ratelimit-limit-tokens"), a.Header.Get("x-ratelimit-remaining-tokens"), a.Header.Get("x-ratelimit-reset-tokens")}
		if a.Status != s.status || got != [3]string{s.limit, s.remaining, s.resetS} {
			t.Errorf("request %d: status %d, tokens %q; want %d, %q", i+1, a.Status, got, s.status, [3]string{s.limit, s.remaining, s.resetS})
		}
	}
	plain, plainKey := tokenGate(t, at, `{"id": "plain", "rules": [{"name": "requests", "algorithm": "fixed_window", "limit": 10, "period": "1m"}]}`)
	res, _ := plain.Check(context.Background(), gate.Request{APIKey: plainKey, Method: "GET", Resource: "/"})
	if h := headers.For(res, "x-api-key").Header; h.Get("x-ratelimit-limit-tokens") != "" || h.Get("x-ratelimit-remaining") != "9" {
		t.Errorf("a rule of requests: %v, want no token fields", h)
	}
}

func tokenGate(t *testing.T, at int64, js string) (*gate.Gate, string) {
	t.Helper()
	tenants := memory.NewTenants()
	tn, err := tenant.Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(context.Background(), tn); err != nil {
		t.Fatal(err)
	}
	k, rec := apikey.Generate(tn.ID, at)
	if err := tenants.PutKey(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return at }})
	if err != nil {
		t.Fatal(err)
	}
	return g, k.Reveal()
}
