package luascript

import (
	"context"
	_ "embed"
	"errors"

	"github.com/edgelimit/edgelimit/pkg/store"
)

var _ store.Epoch = (*Tenants)(nil)

var (
	//go:embed epoch.lua
	epochSource string
	epochScript = NewScript(epochSource)
)

// Epoch is the store's epoch marker, a string key: the layout's prefix and "epoch".
func (l Layout) Epoch() string { return l.Prefix + "epoch" }

// Epoch returns the store's epoch id (store.Epoch): one GET, and when the marker is
// missing (a new store, or one restarted without persistence) a script that writes a
// new id unless another instance did first, and a second GET.
func (s *Tenants) Epoch(ctx context.Context) (string, error) {
	key := s.l.Epoch()
	id, ok, err := s.c.Get(ctx, key)
	if err != nil || ok {
		return id, s.fail("epoch", err)
	}
	if _, err := s.c.Eval(ctx, epochScript, []string{key}, store.NewEpochID()); err != nil {
		return "", s.fail("epoch", err)
	}
	if id, ok, err = s.c.Get(ctx, key); err == nil && !ok {
		err = errors.New("the marker is missing after it was written")
	}
	return id, s.fail("epoch", err)
}
