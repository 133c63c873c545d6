package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Epoch is a tenant store's epoch marker: one record holding a random id, written once
// (create-if-absent, so that of concurrent writers one wins) and never changed. A
// store that lost its data (a Redis or Upstash restarted without persistence, a table
// deleted and created again) lost its marker too: the next Epoch writes a new id, and
// an instance that remembers the old one knows that its cached tenants and keys are
// of a store that no longer holds them (pkg/gate checks it once per config TTL).
type Epoch interface {
	// Epoch returns the store's epoch id, first writing a new one (NewEpochID) when
	// there is none. A failed call is an error and reports no change.
	Epoch(ctx context.Context) (string, error)
}

// NewEpochID returns a new epoch id: 16 hex digits from crypto/rand.
func NewEpochID() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
