package upstash

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestSettleConformance(t *testing.T) {
	storetest.RunSettle(t, newTestStore(t, nil))
}

func TestSettleDebt(t *testing.T) {
	storetest.RunSettleDebt(t, newTestStore(t, nil))
}

// TestSettleOnce: concurrent settles of one id over one store apply once.
func TestSettleOnce(t *testing.T) {
	storetest.RunSettleOnce(t, newTestStore(t, nil))
}

// TestSettleRequests: a settle over three counters is one HTTP request on a warm script
// cache; a second settle of its id one too (it applies nothing); one at its expiry none.
func TestSettleRequests(t *testing.T) {
	ct := &testenv.CountingTransport{}
	s := newTestStore(t, ct)
	ctx := context.Background()
	set := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`,
		`{"name": "c", "algorithm": "concurrency", "limit": 3, "lease": "10s"}`)
	var cs []store.Counter
	for _, name := range []string{"a", "b", "c"} {
		cs = append(cs, store.Counter{Key: storetest.Key(t, name), Set: set})
	}
	at := limiter.Micros(time.Now())
	if err := s.Decide(ctx, cs, at, 2, make([]limiter.Decision, 3)); err != nil {
		t.Fatal(err)
	}
	warm := store.Settlement{ID: "warm-" + strconv.FormatInt(at, 36), At: at, Now: at, Expires: at + 1}
	if _, err := s.Settle(ctx, cs[:1], warm); err != nil { // loads the script
		t.Fatal(err)
	}
	settle := store.Settlement{ID: "s-" + strconv.FormatInt(at, 36), At: at, Now: at + 1, Expires: at + 10_000_000, Delta: -1}
	for i, want := range []bool{true, false} {
		ct.Reset()
		applied, err := s.Settle(ctx, cs, settle)
		if err != nil || applied != want || ct.Count() != 1 {
			t.Fatalf("settle %d: applied %v (%v) in %d requests, want %v in 1", i, applied, err, ct.Count(), want)
		}
	}
	ct.Reset()
	settle.Now, settle.ID = settle.Expires, settle.ID+"x"
	if applied, err := s.Settle(ctx, cs, settle); err != nil || applied || ct.Count() != 0 {
		t.Fatalf("settle at expiry: applied %v (%v) in %d requests, want none", applied, err, ct.Count())
	}
}

// TestSettleBadReplies: a settle answer other than 0 or 1, a failed request and a
// server that does not answer before the deadline are errors, applied false, after
// the one request.
func TestSettleBadReplies(t *testing.T) {
	set := storetest.Set(t, nil, `{"algorithm": "concurrency", "limit": 2, "lease": "10s"}`)
	cs := []store.Counter{{Key: "a", Set: set}, {Key: "b", Set: set}}
	settle := store.Settlement{ID: "n1", At: 1_800_000_000_000_000, Now: 1_800_000_000_000_001, Expires: 1_800_000_010_000_000}
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		check   func(error) bool
	}{
		{"an answer of 2", reply(200, `{"result":2}`), isMalformed},
		{"a string", reply(200, `{"result":"OK"}`), isMalformed},
		{"an array", reply(200, `{"result":[1]}`), isMalformed},
		{"an HTML error page", reply(500, `<html><body>Internal Server Error</body></html>`), isStatus},
		{"a Lua error", reply(400, `{"error":"ERR user_script:1: oops"}`), func(err error) bool { var ce *upstashrest.CommandError; return errors.As(err, &ce) }},
		{"no answer before the deadline", func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body); <-r.Context().Done() }, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ct := fakeStore(t, tc.handler)
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			applied, err := st.Settle(ctx, cs, settle)
			if applied || err == nil || !tc.check(err) {
				t.Fatalf("applied %v, error %v (%T), want an error of the expected kind", applied, err, errors.Unwrap(err))
			}
			if n := ct.Count(); n != 1 {
				t.Fatalf("%d requests, want the 1 that failed", n)
			}
		})
	}
}
