package devserver_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/devserver"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestUpstreamRequestFreesItsConcurrencySlot: under `edgelimit dev --upstream`, a
// concurrency rule limits requests in flight, each holding its slot until it is
// settled or its lease ends. Requests sent one after another are never two in flight,
// so with a limit of 2 each must be allowed once the upstream has answered, whether the
// upstream's answer carries X-RateLimit-Settle-Cost or not, and when the upstream
// cannot be reached (dev answers 502 itself). Dev settles only from that header
// (Server.proxy's ModifyResponse), so the third sequential request gets 429 for the
// lease's 60 s.
func TestUpstreamRequestFreesItsConcurrencySlot(t *testing.T) {
	answering := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "done") // no cost to report: the estimate is the cost
	}))
	defer answering.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing listens there any more
	for _, tt := range []struct{ name, upstream string }{
		{"upstream answers without a settle cost", answering.URL},
		{"upstream unreachable", gone.URL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tenants := memory.NewTenants()
			tn, err := tenant.Decode([]byte(`{"id": "acme", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 2, "lease": "60s"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tenants.Create(t.Context(), tn); err != nil {
				t.Fatal(err)
			}
			key, rec := apikey.Generate("acme", serverT0)
			if err := tenants.PutKey(t.Context(), rec); err != nil {
				t.Fatal(err)
			}
			counters := memory.NewCounters(memory.CountersConfig{})
			now := func() int64 { return serverT0 } // frozen: no lease ends during the test
			g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: now,
				ReservationSecret: bytes.Repeat([]byte("d"), gate.MinSecretBytes)})
			if err != nil {
				t.Fatal(err)
			}
			auth, err := authorizer.New(authorizer.Config{Gate: g, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Metrics: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			adm, err := admin.New(admin.Config{Tenants: tenants, Counters: counters, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			up, _ := url.Parse(tt.upstream)
			srv, err := devserver.New(devserver.Config{Authorizer: auth, Admin: adm, Tenants: tenants, Upstream: up, Settle: g.Settle,
				Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 4 {
				req := httptest.NewRequest(http.MethodGet, "/hello", nil)
				req.Header.Set("x-api-key", key.Reveal())
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				if w.Code == http.StatusTooManyRequests {
					t.Fatalf("sequential request %d, none other in flight (limit 2): 429 %s", i+1, w.Body)
				}
			}
		})
	}
}
