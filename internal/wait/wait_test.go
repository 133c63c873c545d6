package wait_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/wait"
)

// TestSleepCutShort: a done context ends the wait at once with its error.
func TestSleepCutShort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := wait.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("Sleep(cancelled, 1h) = %v after %v", err, time.Since(start))
	}
	if err := wait.Sleep(context.Background(), 0); err != nil {
		t.Fatalf("Sleep(0) = %v", err)
	}
}
