package upstash

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
)

// TestStoreRoundTrips counts HTTP requests: one per decision in the steady state,
// allowed or denied, and two only when the server's script cache is cold.
func TestStoreRoundTrips(t *testing.T) {
	ct := &testenv.CountingTransport{}
	store := newTestStore(t, ct)
	ctx := context.Background()
	set := storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 3, "period": "1m"}`,
		`{"algorithm": "sliding_log", "limit": 5, "period": "1m"}`)
	// A script the server has never seen (a unique comment), rather than SCRIPT FLUSH,
	// which would disturb other packages' tests running against the same server.
	store.script = NewScript(decideSource + "\n-- " + storetest.Key(t, "cold"))
	ct.Reset()
	key := storetest.Key(t, "k")
	trace := storetest.Trace(1, 20, 1, storetest.Burst)
	if _, err := backends.DecideOne(ctx, store, key, set, trace[0].At, 1); err != nil {
		t.Fatal(err)
	}
	if n := ct.Reset(); n != 2 {
		t.Fatalf("first decision with a cold script cache: %d round trips, want 2 (EVALSHA, then EVAL)", n)
	}
	denied := 0
	for _, r := range trace[1:] {
		d, err := backends.DecideOne(ctx, store, key, set, r.At, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed {
			denied++
		}
		if n := ct.Reset(); n != 1 {
			t.Fatalf("decision (allowed=%v): %d round trips, want 1", d.Allowed, n)
		}
	}
	if denied == 0 {
		t.Fatal("the trace never reached a denial; the test proves nothing about denials")
	}
}

// TestStoreBadReplies points the Store at servers that misbehave: every failure is a
// typed error, never a panic, and the Store sends nothing more on the strength of it.
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
		{"a wrong token", reply(401, `{"error":"Unauthorized"}`), func(err error) bool { return errors.Is(err, ErrUnauthorized) }},
		{"a command error", reply(400, `{"error":"ERR wrong number of arguments"}`), func(err error) bool { var ce *CommandError; return errors.As(err, &ce) }},
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
			srv := httptest.NewServer(handler)
			defer srv.Close()
			defer close(release)
			ct := &testenv.CountingTransport{}
			c, err := NewClient(Config{URL: srv.URL, Token: "t", HTTPClient: &http.Client{Transport: ct}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			_, err = backends.DecideOne(ctx, NewStore(c, StoreConfig{}), "k", set, 1_800_000_000_000_000, 1)
			if err == nil || !tt.check(err) {
				t.Fatalf("error %v (%T) is not of the expected type", err, errors.Unwrap(err))
			}
			if n := ct.Count(); n != 1 {
				t.Fatalf("%d requests after a failure, want just the 1 that failed", n)
			}
		})
	}
}

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

func isMalformed(err error) bool { return errors.Is(err, ErrMalformedReply) }
func isStatus(err error) bool    { var se *StatusError; return errors.As(err, &se) }
