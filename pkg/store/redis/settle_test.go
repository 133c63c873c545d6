package redis

import (
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestSettleConformance(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		storetest.RunSettle(t, NewCounters(newTestClient(t, topo.config(t)), CountersConfig{}))
	})
}

func TestSettleDebt(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		storetest.RunSettleDebt(t, NewCounters(newTestClient(t, topo.config(t)), CountersConfig{}))
	})
}

// TestSettleOnce: concurrent settles of one id over one store, on a server and on a
// cluster (the marker in the counters' hash slot), apply once.
func TestSettleOnce(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		storetest.RunSettleOnce(t, NewCounters(newTestClient(t, topo.config(t)), CountersConfig{}))
	})
}
