package upstash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestStoreRoundTrips counts HTTP requests: one per decision in the steady state,
// allowed or denied, over one counter or over a request's three (route, tenant and
// key scopes), and two only when the server's script cache is cold.
func TestStoreRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules [][]string
	}{
		{"one counter", [][]string{{`{"algorithm": "fixed_window", "limit": 3, "period": "1m"}`,
			`{"algorithm": "sliding_log", "limit": 5, "period": "1m"}`}}},
		{"route, tenant and key counters", [][]string{
			{`{"name": "route", "algorithm": "sliding_window", "limit": 8, "period": "1m"}`},
			{`{"name": "tenant", "algorithm": "fixed_window", "limit": 3, "period": "1m"}`},
			{`{"name": "key", "algorithm": "sliding_log", "limit": 5, "period": "1m"}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, token := testenv.UpstashURL(t)
			proxy := testenv.NewCountingProxy(t, url)
			c, err := upstashrest.NewClient(upstashrest.Config{URL: proxy.URL, Token: token})
			if err != nil {
				t.Fatal(err)
			}
			st := NewCounters(c, CountersConfig{})
			// A script the server has never seen (a unique comment), rather than SCRIPT
			// FLUSH, which would disturb other packages' tests against the same server.
			st.lua.DecideScript = luascript.NewScript(luascript.DecideScript().Source() + "\n-- " + storetest.Key(t, "cold"))
			countRoundTrips(t, st, proxy, newCounters(t, tc.rules...))
			// What BenchmarkStoreDecide reports: the client's count, which must be the
			// proxy's.
			if got, want := c.Requests(), int64(len(storetest.Trace(1, 20, 1, storetest.Burst))+1); got != want {
				t.Errorf("the client counted %d requests, the proxy %d", got, want)
			}
		})
	}
}

// countRoundTrips decides a trace on cs and checks the requests ct counted: two for
// the first decision (the script cache is cold), then one for each.
func countRoundTrips(t *testing.T, st *Counters, ct interface{ Reset() int64 }, cs []store.Counter) {
	ctx := context.Background()
	outs := make([]limiter.Decision, len(cs))
	trace := storetest.Trace(1, 20, 1, storetest.Burst)
	ct.Reset()
	if err := st.Decide(ctx, cs, trace[0].At, 1, outs); err != nil {
		t.Fatal(err)
	}
	if n := ct.Reset(); n != 2 {
		t.Fatalf("first decision with a cold script cache: %d round trips, want 2 (EVALSHA, then EVAL)", n)
	}
	denied := 0
	for _, r := range trace[1:] {
		if err := st.Decide(ctx, cs, r.At, 1, outs); err != nil {
			t.Fatal(err)
		}
		d, _ := limiter.Join(outs)
		if !d.Allowed {
			denied++
		}
		if n := ct.Reset(); n != 1 {
			t.Fatalf("decision over %d counters (allowed=%v): %d round trips, want 1", len(cs), d.Allowed, n)
		}
	}
	if denied == 0 {
		t.Fatal("the trace never reached a denial; the test proves nothing about denials")
	}
}

// TestStoreBadReplies points the Counters at servers that misbehave: every failure is a
// typed error, never a panic, and the Counters sends nothing more on the strength of it.
func TestStoreBadReplies(t *testing.T) {
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`, `{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		check   func(error) bool
	}{
		{"a string where integers are due", reply(200, `{"result":"OK"}`), isMalformed},
		{"integers of the wrong count", reply(200, `{"result":[1,0,5,0,0]}`), isMalformed},
		{"an impossible outcome", reply(200, `{"result":[1,0,5,7,0,1,0,5,0,0]}`), isMalformed},
		{"an HTML error page", reply(500, `<html><body>Internal Server Error</body></html>`), isStatus},
		{"a truncated body", reply(200, `{"result":[1,0,`), isMalformed},
		{"a wrong token", reply(401, `{"error":"Unauthorized"}`), func(err error) bool { return errors.Is(err, upstashrest.ErrUnauthorized) }},
		{"a command error", reply(400, `{"error":"ERR wrong number of arguments"}`), func(err error) bool { var ce *upstashrest.CommandError; return errors.As(err, &ce) }},
		{"no answer before the deadline", nil, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			handler := tt.handler
			if handler == nil { // hang: read the request, never answer
				handler = func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					select {
					case <-r.Context().Done():
					case <-release:
					}
				}
			}
			st, ct := fakeStore(t, handler)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err := store.DecideOne(ctx, st, "k", set, 1_800_000_000_000_000, 1)
			if err == nil || !tt.check(err) {
				t.Fatalf("error %v (%T) is not of the expected type", err, errors.Unwrap(err))
			}
			if n := ct.Count(); n != 1 {
				t.Fatalf("%d requests after a failure, want just the 1 that failed", n)
			}
		})
	}
}

// TestStoreBadRepliesCounters: a reply with the wrong number of integers for the
// counters of a decision (2, 1 and 2 rules: 25 integers due), or with an impossible
// outcome in any counter's part, is upstashrest.ErrMalformedReply with every decision zero.
func TestStoreBadRepliesCounters(t *testing.T) {
	const bucket = `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`
	const window = `{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`
	cs := []store.Counter{{Key: "a", Set: storetest.Set(t, nil, bucket, window)},
		{Key: "b", Set: storetest.Set(t, nil, window)}, {Key: "c", Set: storetest.Set(t, nil, window, bucket)}}
	good := strings.Repeat("1,4,5,0,0,", 5)
	for _, tc := range []struct {
		name   string
		result string
		ok     bool
	}{
		{"25 integers (the control)", good, true},
		{"no integers", "", false},
		{"the first counter's 10", good[:2*10], false},
		{"one rule short", good[:2*20], false},
		{"one integer short", good[:2*24], false},
		{"one integer too many", good + "0,", false},
		{"one rule too many", good + "1,4,5,0,0,", false},
		{"an impossible outcome in the last counter", good[:2*20] + "0,4,5,0,0,", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"result":[` + strings.TrimSuffix(tc.result, ",") + `]}`
			st, ct := fakeStore(t, reply(200, body))
			outs := make([]limiter.Decision, len(cs))
			err := st.Decide(context.Background(), cs, 1_800_000_000_000_000, 1, outs)
			switch {
			case tc.ok && err != nil:
				t.Fatalf("a well-formed reply: %v", err)
			case !tc.ok && !isMalformed(err):
				t.Fatalf("error %v, want upstashrest.ErrMalformedReply", err)
			case !tc.ok && fmt.Sprint(outs) != fmt.Sprint(make([]limiter.Decision, len(cs))):
				t.Fatalf("decisions %+v after a malformed reply, want zero", outs)
			}
			if n := ct.Count(); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

// fakeStore returns a Counters whose server is handler, and the count of the requests
// that server received.
func fakeStore(t *testing.T, handler http.HandlerFunc) (*Counters, *served) {
	n := &served{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return NewCounters(c, CountersConfig{}), n
}

// served counts the requests a fake server received.
type served struct{ atomic.Int64 }

// Count returns the count.
func (s *served) Count() int64 { return s.Load() }

func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if strings.HasPrefix(body, "{") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func isMalformed(err error) bool {
	return errors.Is(err, ErrMalformedReply) || errors.Is(err, ErrMalformedScriptReply)
}
func isStatus(err error) bool { var se *upstashrest.StatusError; return errors.As(err, &se) }
