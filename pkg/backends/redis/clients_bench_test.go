package redis

import (
	"context"
	"fmt"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
	"github.com/edgelimit/edgelimit/pkg/backends/upstash"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

var clientRule = `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`

func BenchmarkClients(b *testing.B) {
	addr := testenv.RedisAddr(b)
	set := storetest.Set(b, nil, clientRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, script := range []string{"decide", "bucket"} {
		src, argsOf := upstash.DecideScript().Source(), func(key string, set *limiter.Set, now, cost int64, consume bool, margin time.Duration) ([]string, []any) {
			return upstash.DecideArgs([]backends.Counter{{Key: key, Set: set}}, now, cost, consume, margin)
		}
		if script == "bucket" {
			src, argsOf = upstash.BucketScript().Source(), upstash.BucketArgs
		}
		gs := goredis.NewScript(src)
		gr := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 32, MaxRetries: -1})
		rs := rueidis.NewLuaScript(src)
		rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableRetry: true, DisableCache: true, ForceSingleClient: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, callers := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/go-redis/callers=%d", script, callers), func(b *testing.B) {
				storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
					keys, args := argsOf(key, set, at+int64(i)*100, 1, true, 0)
					return gs.Run(ctx, gr, keys, args...).Err()
				})
			})
			b.Run(fmt.Sprintf("%s/rueidis/callers=%d", script, callers), func(b *testing.B) {
				storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
					keys, args := argsOf(key, set, at+int64(i)*100, 1, true, 0)
					return rs.Exec(ctx, rc, keys, stringArgs(args)).Error()
				})
			})
		}
		gr.Close()
		rc.Close()
	}
}
