// Package wait holds the one way edgelimit waits on the real clock: a sleep that the
// request's context cuts short. Callers take it as an injectable function, so that
// tests never sleep.
package wait

import (
	"context"
	"time"
)

// Sleep waits d, or returns ctx's error as soon as ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
