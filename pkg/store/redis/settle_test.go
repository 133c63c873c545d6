package redis

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
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

// TestConcurrencyTTLs reads the TTLs (PTTL) a concurrency rule's keys get, at real
// instants: the hash and the sorted set live until the last slot's expiry plus the
// margin, after the decision and after the settle that frees the slot; the marker
// until the reservation's expiry plus the margin.
func TestConcurrencyTTLs(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		c := newTestClient(t, topo.config(t))
		s := NewCounters(c, CountersConfig{TTLMargin: 30 * time.Second})
		ctx := context.Background()
		set := storetest.Set(t, nil, `{"name": "c", "algorithm": "concurrency", "limit": 2, "lease": "10s"}`)
		cs := []store.Counter{{Key: storetest.Key(t, "k"), Set: set}}
		sk := slotKey(cs[0].Key)
		at := limiter.Micros(time.Now())
		if err := s.Decide(ctx, cs, at, 1, make([]limiter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
		slotTTL := (set.SlotExpiry(0, at)-at+999)/1000 + 30_000
		pttl := func(key string) int64 {
			n, err := c.Do(ctx, func(b rueidis.Builder) rueidis.Completed { return b.Pttl().Key(key).Build() }).AsInt64()
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		check := func(when, key string, want int64) {
			t.Helper()
			if got := pttl(key); got > want || got < want-2000 {
				t.Errorf("%s: %s has a TTL of %d ms, want %d (less the time since)", when, key, got, want)
			}
		}
		zkey := luascript.LogKey(sk, set.Rule(0).StateID())
		check("decided", luascript.HashKey(sk), slotTTL)
		check("decided", zkey, slotTTL)
		settle := store.Settlement{ID: "ttl-" + strconv.FormatInt(at, 36), At: at, Now: limiter.Micros(time.Now()), Expires: at + 20_000_000}
		if applied, err := s.Settle(ctx, cs, settle); err != nil || !applied {
			t.Fatalf("settle: %v, %v", applied, err)
		}
		check("settled", luascript.HashKey(sk), slotTTL)
		check("settled", zkey, slotTTL)
		check("settled", luascript.MarkerKey(sk, settle.ID), (settle.Expires-settle.Now+999)/1000+30_000)
	})
}
