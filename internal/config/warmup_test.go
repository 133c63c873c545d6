package config_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// fakeStore is an HTTP server standing in for DynamoDB or Upstash: it answers every
// request with reply and counts its connections and requests.
type fakeStore struct {
	*httptest.Server
	mu       sync.Mutex
	conns    int
	requests []string
	reply    func(r *http.Request) string
}

func newFakeStore(t *testing.T, reply func(r *http.Request) string) *fakeStore {
	f := &fakeStore{reply: reply}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Amz-Target")+string(body))
		f.mu.Unlock()
		_, _ = io.WriteString(w, f.reply(r))
	}))
	f.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.mu.Lock()
			f.conns++
			f.mu.Unlock()
		}
	}
	f.Start()
	t.Cleanup(f.Close)
	return f
}

func (f *fakeStore) counts() (conns int, requests []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns, append([]string(nil), f.requests...)
}

// WarmUp opens the connection the first decision then uses, with a request that costs
// nothing on DynamoDB (a GET of the endpoint, no API call) and one PING on Upstash:
// after it, a tenant lookup opens no connection. Without WarmUp the lookup opens it.
func TestWarmUpOpensTheStoresConnection(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "edgelimittest")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "edgelimittest")
	t.Setenv("AWS_REGION", "us-east-1")
	dynamo := newFakeStore(t, func(r *http.Request) string {
		if r.Method == http.MethodGet {
			return "healthy: dynamodb.us-east-1.amazonaws.com"
		}
		return "{}" // GetItem: no such item
	})
	up := newFakeStore(t, func(*http.Request) string { return `{"result": null}` })
	backends := []struct {
		name   string
		env    map[string]string
		warmUp string // the warm-up request, as the fake store records it
		opts   func() config.Options
	}{
		// DynamoDB with the SDK's own HTTP client, new with each client.
		{"dynamodb", map[string]string{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_TENANTS_TABLE": "tenants",
			"EDGELIMIT_COUNTERS_TABLE": "counters", "AWS_ENDPOINT_URL_DYNAMODB": dynamo.URL}, "GET / ",
			func() config.Options { return config.Options{} }},
		// Upstash's default client shares its connections between clients: a new one.
		{"upstash", map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": up.URL,
			"UPSTASH_REDIS_REST_TOKEN": "token"}, `POST / ["PING"]`,
			func() config.Options { return config.Options{HTTPClient: &http.Client{Transport: &http.Transport{}}} }},
	}
	for i, b := range backends {
		if !built(b.name) {
			continue
		}
		f := []*fakeStore{dynamo, up}[i]
		for _, warm := range []bool{true, false} {
			st := openStores(t, b.env, b.opts())
			conns0, reqs0 := f.counts()
			if warm {
				if err := st.WarmUp(context.Background()); err != nil {
					t.Fatalf("%s: WarmUp: %v", b.name, err)
				}
				if conns, reqs := f.counts(); conns != conns0+1 || len(reqs) != len(reqs0)+1 || reqs[len(reqs)-1] != b.warmUp {
					t.Fatalf("%s: WarmUp opened %d connections with %q, want 1 with %q", b.name, conns-conns0, reqs[len(reqs0):], b.warmUp)
				}
			}
			conns1, _ := f.counts()
			if _, err := st.Tenants.Get(context.Background(), "acme"); err == nil {
				t.Fatalf("%s: tenant acme found in an empty store", b.name)
			}
			conns2, _ := f.counts()
			if opened := conns2 - conns1; warm && opened != 0 || !warm && opened != 1 {
				t.Errorf("%s, warmed up %v: the first lookup opened %d connections", b.name, warm, opened)
			}
		}
	}
}

// A store that is down fails WarmUp with an error that says so, within a second, and
// leaves the stores usable: the caller logs it and goes on. Memory needs no warm-up.
func TestWarmUpOfAStoreThatIsDown(t *testing.T) {
	requireBackend(t, config.BackendUpstash)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	st := openStores(t, map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": down.URL,
		"UPSTASH_REDIS_REST_TOKEN": "token"}, config.Options{})
	if err := st.WarmUp(context.Background()); err == nil || !strings.Contains(err.Error(), "warming up") {
		t.Fatalf("WarmUp of a store that is down: %v", err)
	}
	mem := openStores(t, map[string]string{"EDGELIMIT_BACKEND": "memory"}, config.Options{})
	if err := mem.WarmUp(context.Background()); err != nil {
		t.Fatalf("memory: %v", err)
	}
}

func openStores(t *testing.T, env map[string]string, opts config.Options) *config.Stores {
	t.Helper()
	_, st, err := config.Open(context.Background(), envOf(env), opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
