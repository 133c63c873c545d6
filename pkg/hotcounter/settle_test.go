package hotcounter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestSettlePassesThrough(t *testing.T) {
	storetest.RunSettle(t, cold(memory.NewCounters(memory.CountersConfig{})))
}

// noSettle is a Counters that does not settle.
type noSettle struct{ store.Counters }

func TestSettleWithoutASettler(t *testing.T) {
	s := hotcounter.New(noSettle{memory.NewCounters(memory.CountersConfig{})}, hotcounter.Config{})
	set := storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 5, "period": "1s"}`)
	cs := []store.Counter{{Key: storetest.Key(t, "k"), Set: set}}
	_, err := s.Settle(context.Background(), cs, store.Settlement{ID: "x", At: 1, Now: 2, Expires: limiter.MaxTime, Delta: -1})
	if err == nil || !strings.Contains(err.Error(), "does not settle") {
		t.Fatalf("Settle over a store without Settler: %v", err)
	}
}
