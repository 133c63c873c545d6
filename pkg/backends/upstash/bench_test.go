package upstash

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
)

var benchRule = `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`

// BenchmarkStoreDecide: Store.Decide through the local Upstash-compatible server
// (HTTP, JSON) to redis-server, over loopback.
func BenchmarkStoreDecide(b *testing.B) {
	store := newTestStore(b, nil)
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				_, err := backends.DecideOne(ctx, store, key, set, at+int64(i)*100, 1)
				return err
			})
		})
	}
}

// BenchmarkRedisDirect is the peer: the same script and arguments sent by go-redis
// straight to redis-server (RESP, pooled connections), without the REST layer.
func BenchmarkRedisDirect(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr(b), PoolSize: 32})
	defer rdb.Close()
	script := redis.NewScript(decideSource)
	store := &Store{marginMS: 60000}
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				keys, args := store.scriptArgs(key, set, at+int64(i)*100, 1, true)
				return script.Run(ctx, rdb, keys, args...).Err()
			})
		})
	}
}
