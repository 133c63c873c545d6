package hotcounter_test

import (
	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

// upstashStore is the upstash store on the local Upstash server, counting requests.
func upstashStore(t *testing.T, ct *testenv.CountingTransport) *upstash.Counters {
	url, token := testenv.UpstashURL(t)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token, HTTPClient: &http.Client{Transport: ct}})
	if err != nil {
		t.Fatal(err)
	}
	return upstash.NewCounters(c, upstash.CountersConfig{})
}

// TestUpstashConformanceCold: the decorator, hot mode out of reach, passes the
// conformance suite on the local Upstash server as the bare store does.
func TestUpstashConformanceCold(t *testing.T) {
	bare := upstashStore(t, &testenv.CountingTransport{})
	storetest.RunCounters(t, cold(bare), storetest.CountersOptions{})
}

// TestUpstashCommandsPerDecision measures what the decorator does to Upstash's bill
// (one command per request): a cold key (10 decisions a second) still costs one
// request per decision and decides as the limiter does; a hot tenant counter (200 a
// second) costs one request per lease of L/2 x 200 = 20 decisions, after its first
// cold ones (about 12, until the 250 ms window says 50 a second): at most 70 for 1,000.
func TestUpstashCommandsPerDecision(t *testing.T) {
	ct := &testenv.CountingTransport{}
	s := newHot(upstashStore(t, ct))
	c := counter(t, "k", `{"name": "w", "algorithm": "fixed_window", "limit": 20, "period": "1s"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 8, "period": "1s", "burst": 15}`)
	store.DecideOne(t.Context(), s, storetest.Key(t, "script"), c.Set, t0, 1) // the script cache
	ct.Reset()
	ref := c.Set.NewStates()
	for i := range 200 {
		at := t0 + int64(i)*100_000
		want, _ := c.Set.Decide(ref, at, 1)
		if got := decide(t, s, []store.Counter{c}, at, 1); got != want {
			t.Fatalf("cold, request %d: %+v, the limiter %+v", i, got, want)
		}
	}
	if n := ct.Reset(); n != 200 {
		t.Fatalf("cold: %d requests for 200 decisions, want 200", n)
	}
	hot := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 100000, "period": "1s"}`)
	for i := range 1000 {
		if d := decide(t, s, []store.Counter{hot}, t0+int64(i)*5_000, 1); !d.Allowed {
			t.Fatalf("hot, request %d denied: %+v", i, d)
		}
	}
	n := ct.Reset()
	t.Logf("Upstash requests per decision: cold 1, hot %.3f (%d for 1000)", float64(n)/1000, n)
	if n > 70 {
		t.Fatalf("hot: %d requests for 1000 decisions, want at most 70", n)
	}
}
