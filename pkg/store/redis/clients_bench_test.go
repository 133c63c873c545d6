package redis

import (
	"context"
	"fmt"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

// BenchmarkClients is how the client was chosen: decide.lua, with the same KEYS and
// ARGV, through go-redis v9 and through rueidis to the same redis-server, each as it is
// used (go-redis takes the arguments as they are, rueidis as strings), at 1 and 16
// callers: decisions/s, latency and allocs/op.
func BenchmarkClients(b *testing.B) {
	addr := testenv.RedisAddr(b)
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	src := upstash.DecideScript().Source()
	gs, rs := goredis.NewScript(src), rueidis.NewLuaScript(src)
	gr := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 32, MaxRetries: -1})
	defer gr.Close()
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableRetry: true, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	args := func(key string, i int) ([]string, []any) {
		return upstash.DecideArgs([]store.Counter{{Key: key, Set: set}}, at+int64(i)*100, 1, true, 0)
	}
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("go-redis/callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				keys, argv := args(key, i)
				return gs.Run(ctx, gr, keys, argv...).Err()
			})
		})
		b.Run(fmt.Sprintf("rueidis/callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				keys, argv := args(key, i)
				return rs.Exec(ctx, rc, keys, stringArgs(argv)).Error()
			})
		})
	}
}
