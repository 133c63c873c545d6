package upstash

import (
	"context"
	"testing"
)

// TestEpochOnUpstash: through the Upstash REST protocol (the local server, its script
// sent with key locking), the first read of a store's epoch writes it, later reads
// find the same, and once the marker is gone (a database restarted without its data)
// the next read writes another.
func TestEpochOnUpstash(t *testing.T) {
	c := newClient(t)
	s := newTestTenantsOn(t, c)
	ctx := context.Background()
	first, err := s.Epoch(ctx)
	if err != nil || first == "" {
		t.Fatalf("the first read: %q, %v", first, err)
	}
	if id, err := s.Epoch(ctx); id != first || err != nil {
		t.Fatalf("read again: %q, %v; want %q", id, err, first)
	}
	marker := testStoreOf(s).l.Epoch()
	if _, err := c.Do(ctx, "DEL", marker); err != nil {
		t.Fatal(err)
	}
	if id, err := s.Epoch(ctx); id == first || id == "" || err != nil {
		t.Fatalf("after the marker was lost: %q, %v; want a new epoch, not %q", id, err, first)
	}
}
