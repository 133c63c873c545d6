package dynamodb

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// lostReply is a fake DynamoDB endpoint for TransactWriteItems that applies a
// transaction once per ClientRequestToken, as DynamoDB does, and answers the first
// one with an HTTP 500 after applying it: a reply lost after the commit.
type lostReply struct {
	mu       sync.Mutex
	requests int
	tokens   []string
	applied  map[string]bool
}

func (f *lostReply) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in struct{ ClientRequestToken string }
	json.Unmarshal(body, &in)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	f.tokens = append(f.tokens, in.ClientRequestToken)
	f.applied[in.ClientRequestToken] = true // applied, or already was under this token
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if f.requests == 1 {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError", "message": "lost"}`))
		return
	}
	w.Write([]byte("{}"))
}

// check reports whether the fake saw one retry of one transaction: two requests,
// one token, so one effect.
func (f *lostReply) check(t *testing.T, op string, err error) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil || f.requests != 2 || len(f.applied) != 1 || f.tokens[0] == "" || f.tokens[0] != f.tokens[1] {
		t.Errorf("%s: %v after %d requests with tokens %q: want 2 requests (one retry) under one token (one effect)", op, err, f.requests, f.tokens)
	}
}

// TestTransactionRetriedOnce: a TransactWriteItems whose reply is lost after it
// committed (an HTTP 500) is retried by the SDK under the same ClientRequestToken, so
// DynamoDB applies it once: for the admin writes (PutKey: the client's default
// retries) and for a decision over several counters (retryLost).
func TestTransactionRetriedOnce(t *testing.T) {
	t.Run("PutKey", func(t *testing.T) {
		f := &lostReply{applied: map[string]bool{}}
		srv := httptest.NewServer(f)
		defer srv.Close()
		_, rec := apikey.Generate("acme", 1_800_000_000_000_000)
		f.check(t, "PutKey", NewTenants(newClient(srv.URL), "tenants").PutKey(context.Background(), rec))
	})
	t.Run("Decide over two counters", func(t *testing.T) {
		f := &lostReply{applied: map[string]bool{}}
		srv := httptest.NewServer(f)
		defer srv.Close()
		set := storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
		cs := []store.Counter{{Key: "tenant", Set: set}, {Key: "key", Set: set}}
		outs := make([]limiter.Decision, 2)
		err := NewCounters(newClient(srv.URL), "counters", CountersConfig{}).Decide(context.Background(), cs, 1_800_000_000_000_000, 1, outs)
		f.check(t, "Decide", err)
		if !outs[0].Allowed || !outs[1].Allowed {
			t.Errorf("the decision after the retry: %+v", outs)
		}
	})
}
