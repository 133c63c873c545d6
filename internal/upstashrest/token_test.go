package upstashrest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

// rotatingServer accepts only its current token, which rotate changes, and counts
// the requests it ran.
type rotatingServer struct {
	mu    sync.Mutex
	token string
	ran   int
}

func (s *rotatingServer) handle(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"Unauthorized"}`)
		return
	}
	s.ran++
	io.WriteString(w, `{"result":"PONG"}`)
}

func (s *rotatingServer) rotate(token string) {
	s.mu.Lock()
	s.token = token
	s.mu.Unlock()
}

// A token rotated on the server is read again after the first 401, and the refused
// request goes again with it, once; a 401 within the interval reads it no more.
func TestRotatedTokenIsReadAgainOnA401(t *testing.T) {
	srv := &rotatingServer{token: "old"}
	f := newFake(t, srv.handle)
	var mu sync.Mutex
	secret, reads := "old", 0
	refresh := func(context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		reads++
		return secret, nil
	}
	c, err := upstashrest.NewClient(upstashrest.Config{URL: f.srv.URL, Token: "old", RefreshToken: refresh, TokenRefreshInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(testCtx(t), "PING"); err != nil || reads != 0 {
		t.Fatalf("PING with the current token: %v after %d reads, want no read", err, reads)
	}
	srv.rotate("new")
	mu.Lock()
	secret = "new"
	mu.Unlock()
	if _, err := c.Do(testCtx(t), "PING"); err != nil || reads != 1 || srv.ran != 2 {
		t.Fatalf("PING after the rotation: %v, %d reads, %d run; want the new token read once, the PING run", err, reads, srv.ran)
	}
	srv.rotate("newer") // the secret still holds "new": the read would not help
	for range 3 {
		if _, err := c.Do(testCtx(t), "PING"); !errors.Is(err, upstashrest.ErrUnauthorized) {
			t.Fatalf("PING with a token the server refuses: %v, want ErrUnauthorized", err)
		}
	}
	if reads != 1 || srv.ran != 2 {
		t.Errorf("%d reads and %d run within the interval, want 1 and 2", reads, srv.ran)
	}
}
