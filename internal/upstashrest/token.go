package upstashrest

import (
	"context"
	"sync"
	"time"
)

// tokenRenewal reads a rotated token again after a 401 (Config.RefreshToken), at most
// once per interval.
type tokenRenewal struct {
	read  func(context.Context) (string, error) // nil: no renewal
	every time.Duration

	mu   sync.Mutex // held while read runs: one read at a time
	last time.Time  // when read last ran
}

// setToken makes token the one sent.
func (c *Client) setToken(token string) {
	auth := "Bearer " + token
	c.auth.Store(&auth)
}

// readTimeout bounds one call of Config.RefreshToken, which outlives the call that
// started it when that call's deadline is shorter (a 100 ms budget, say): the token it
// reads serves the next calls.
const readTimeout = 10 * time.Second

// renewToken is called after a 401 answered a request sent with sent (an auth of
// c.auth). It reports whether the request may go again: another call or this one has
// read a token other than the refused one before ctx ended.
func (c *Client) renewToken(ctx context.Context, sent *string) bool {
	r := &c.renew
	if r.read == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := c.auth.Load(); cur != sent {
		return *cur != *sent // renewed while this request was refused
	}
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < r.every {
		return false
	}
	r.last = now
	done := make(chan bool, 1)
	go func() {
		readCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readTimeout)
		defer cancel()
		token, err := r.read(readCtx)
		ok := err == nil && checkToken(token) == nil && "Bearer "+token != *sent
		if ok {
			c.setToken(token)
		}
		done <- ok
	}()
	select {
	case ok := <-done:
		return ok
	case <-ctx.Done():
		return false
	}
}
