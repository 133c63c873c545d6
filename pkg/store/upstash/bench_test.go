package upstash

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

var benchRule = `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`

// BenchmarkStoreDecide: Counters.Decide through the local Upstash-compatible server
// (HTTP, JSON) to redis-server, over loopback.
func BenchmarkStoreDecide(b *testing.B) {
	st := newTestStore(b, nil)
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				_, err := store.DecideOne(ctx, st, key, set, at+int64(i)*100, 1)
				return err
			})
		})
	}
}

// BenchmarkStoreDecideCounters: one decision over a request's three counters (route,
// tenant and key scopes) in one call, against the peer of one call per counter (three
// round trips, and not atomic).
func BenchmarkStoreDecideCounters(b *testing.B) {
	st := newTestStore(b, nil)
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	b.Run("one call", func(b *testing.B) {
		cs := []store.Counter{{Key: storetest.Key(b, "route"), Set: set},
			{Key: storetest.Key(b, "tenant"), Set: set}, {Key: storetest.Key(b, "key"), Set: set}}
		outs := make([]limiter.Decision, len(cs))
		storetest.BenchCallers(b, 1, func(ctx context.Context, _ string, i int) error {
			return st.Decide(ctx, cs, at+int64(i)*100, 1, outs)
		})
	})
	b.Run("a call per counter", func(b *testing.B) {
		keys := []string{storetest.Key(b, "route"), storetest.Key(b, "tenant"), storetest.Key(b, "key")}
		storetest.BenchCallers(b, 1, func(ctx context.Context, _ string, i int) error {
			for _, key := range keys {
				if _, err := store.DecideOne(ctx, st, key, set, at+int64(i)*100, 1); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// BenchmarkRedisDirect is the peer: the same script and arguments sent by go-redis
// straight to redis-server (RESP, pooled connections), without the REST layer.
func BenchmarkRedisDirect(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr(b), PoolSize: 32})
	defer rdb.Close()
	script := redis.NewScript(decideSource)
	st := &Counters{marginMS: 60000}
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				keys, args := st.scriptArgs([]store.Counter{{Key: key, Set: set}}, at+int64(i)*100, 1, true)
				return script.Run(ctx, rdb, keys, args...).Err()
			})
		})
	}
}
