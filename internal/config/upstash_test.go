package config_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// Regression (a rotated Upstash token was read again only at a cold start: 401, then
// the fail mode, until the instance was recycled): with the token in Secrets Manager,
// a rotation of the secret and of the database's token is found at the first 401, and
// the refused call answers.
func TestRotatedUpstashTokenIsReadAgain(t *testing.T) {
	requireBackend(t, config.BackendUpstash)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	var mu sync.Mutex
	token, reads := "old", 0
	current := func() string { mu.Lock(); defer mu.Unlock(); return token }
	readCount := func() int { mu.Lock(); defer mu.Unlock(); return reads }
	secrets := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		reads++
		mu.Unlock()
		io.WriteString(w, `{"ARN": "x", "Name": "upstash", "SecretString": "`+current()+`"}`)
	}))
	defer secrets.Close()
	upstash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer "+current() {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"Unauthorized"}`)
			return
		}
		io.WriteString(w, `{"result":"PONG"}`)
	}))
	defer upstash.Close()
	c, err := config.Load(envOf(map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": upstash.URL,
		"UPSTASH_REDIS_REST_TOKEN_SECRET_ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:upstash",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER":    secrets.URL}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Build(context.Background(), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WarmUp(t.Context()); err != nil || readCount() != 1 {
		t.Fatalf("warm-up: %v after %d secret reads, want 1", err, readCount())
	}
	mu.Lock()
	token = "new"
	mu.Unlock()
	if err := st.WarmUp(t.Context()); err != nil {
		t.Fatalf("after the rotation: %v, want the new token read and the PING answered", err)
	}
	if n := readCount(); n != 2 {
		t.Errorf("%d secret reads, want 2: one at the start, one after the 401", n)
	}
	if err := st.WarmUp(t.Context()); err != nil || readCount() != 2 || strings.Contains(current(), "old") {
		t.Errorf("then: %v, %d reads; want the new token kept", err, readCount())
	}
}
