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
// callers: decisions/s, latency and allocs/op. BenchmarkClientsPaired compares the
// medians under one load.
func BenchmarkClients(b *testing.B) {
	sides := clientSides(b)
	for _, callers := range []int{1, 16} {
		for i, name := range []string{"go-redis", "rueidis"} {
			b.Run(fmt.Sprintf("%s/callers=%d", name, callers), func(b *testing.B) {
				storetest.BenchCallers(b, callers, sides[i])
			})
		}
	}
}

// BenchmarkClientsPaired is BenchmarkClients with the two clients taking turns (see
// BenchmarkGCRAPaired): the median latency of each, and rueidis/go-redis.
func BenchmarkClientsPaired(b *testing.B) {
	sides := clientSides(b)
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			lat := takeTurns(b, callers, sides)
			g, r := median(lat[0]), median(lat[1])
			b.ReportMetric(g, "go-redis-p50-us")
			b.ReportMetric(r, "rueidis-p50-us")
			b.ReportMetric(r/g, "p50-ratio")
		})
	}
}

// clientSides returns one decision by go-redis and one by rueidis, of the same script
// with the same arguments on the test redis-server.
func clientSides(b *testing.B) [2]func(ctx context.Context, key string, i int) error {
	addr := testenv.RedisAddr(b)
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	src := upstash.DecideScript().Source()
	gs, rs := goredis.NewScript(src), rueidis.NewLuaScript(src)
	gr := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 32, MaxRetries: -1})
	b.Cleanup(func() { gr.Close() })
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableRetry: true, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rc.Close)
	args := func(key string, i int) ([]string, []any) {
		return upstash.DecideArgs([]store.Counter{{Key: key, Set: set}}, at+int64(i)*100, 1, true, 0)
	}
	return [2]func(ctx context.Context, key string, i int) error{
		func(ctx context.Context, key string, i int) error {
			keys, argv := args(key, i)
			return gs.Run(ctx, gr, keys, argv...).Err()
		},
		func(ctx context.Context, key string, i int) error {
			keys, argv := args(key, i)
			return rs.Exec(ctx, rc, keys, stringArgs(argv)).Error()
		},
	}
}
