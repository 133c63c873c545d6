package devserver_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// TestStreamedUpstreamBodyHoldsItsSlot: a request is in flight until its upstream's
// body has been copied to the client, so a streamed answer holds its concurrency slot
// to its end and frees it then. Dev settled when the upstream's headers arrived, so a
// second request was let through while the first still streamed.
func TestStreamedUpstreamBodyHoldsItsSlot(t *testing.T) {
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first part ")
		http.NewResponseController(w).Flush()
		<-release
		io.WriteString(w, "last part")
	}))
	defer upstream.Close()
	dev, key := startDev(t, `{"id": "acme", "rules": [{"name": "inflight", "algorithm": "concurrency", "limit": 1, "lease": "60s"}]}`, upstream.URL)
	get := func() *http.Response {
		req, _ := http.NewRequest(http.MethodGet, dev.URL+"/stream", nil)
		req.Header.Set("x-api-key", key)
		resp, err := dev.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	streaming := get() // its headers are here; its body is not done
	if streaming.StatusCode != http.StatusOK {
		t.Fatalf("first request: %s", streaming.Status)
	}
	second := get()
	second.Body.Close()
	if second.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a request while the first streams (limit 1): %s, want 429", second.Status)
	}
	close(release)
	if body, err := io.ReadAll(streaming.Body); err != nil || string(body) != "first part last part" {
		t.Fatalf("streamed body %q, %v", body, err)
	}
	streaming.Body.Close()
	third := get()
	third.Body.Close()
	if third.StatusCode != http.StatusOK {
		t.Errorf("a request once the stream ended: %s, want 200", third.Status)
	}
}

// startDev serves, on a test server, a gateway of the tenant acme (tenantJSON) in memory
// stores with a reservation secret at a frozen clock, proxying to upstream; it returns
// the server and a key of acme.
func startDev(t *testing.T, tenantJSON, upstream string) (*httptest.Server, string) {
	t.Helper()
	tenants, key := seedTenants(t, tenantJSON)
	counters, now := memory.NewCounters(memory.CountersConfig{}), func() int64 { return serverT0 }
	up, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	srv := wireTo(t, gate.Config{Tenants: tenants, Counters: counters, Now: now, ReservationSecret: bytes.Repeat([]byte("e"), gate.MinSecretBytes)},
		admin.Config{Tenants: tenants, Counters: counters, Now: now}, up)
	dev := httptest.NewServer(srv)
	t.Cleanup(dev.Close)
	return dev, key.Reveal()
}
