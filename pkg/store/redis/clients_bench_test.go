package redis

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// BenchmarkClients is how the client was chosen: decide.lua, with the same KEYS and
// ARGV, through rueidis and through go-redis v9 to the same redis-server, each as it is
// used (go-redis takes the arguments as they are, rueidis as strings), at 1 and 16
// callers: decisions/s, latency and allocs/op. BenchmarkClientsPaired compares the
// medians under one load (p50-ratio: rueidis over go-redis).
func BenchmarkClients(b *testing.B) {
	benchEach(b, [2]string{"rueidis", "go-redis"}, clientSides(b))
}

// BenchmarkClientsPaired is BenchmarkClients with the two clients taking turns (see
// BenchmarkGCRAPaired).
func BenchmarkClientsPaired(b *testing.B) {
	benchTurns(b, [2]string{"rueidis", "go-redis"}, clientSides(b))
}

// clientSides returns one decision by rueidis and one by go-redis, of the same script
// with the same arguments on the test redis-server.
func clientSides(b *testing.B) [2]side {
	addr := testenv.RedisAddr(b)
	set := storetest.Set(b, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	src := luascript.DecideScript().Source()
	gs, rs := goredis.NewScript(src), rueidis.NewLuaScript(src)
	gr := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 32, MaxRetries: -1})
	b.Cleanup(func() { gr.Close() })
	rc, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableRetry: true, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rc.Close)
	args := func(key string, i int) ([]string, []any) {
		return luascript.DecideArgs([]store.Counter{{Key: key, Set: set}}, at+int64(i)*100, 1, true, 0)
	}
	return [2]side{
		func(ctx context.Context, key string, i int) error {
			keys, argv := args(key, i)
			return rs.Exec(ctx, rc, keys, stringArgs(argv)).Error()
		},
		func(ctx context.Context, key string, i int) error {
			keys, argv := args(key, i)
			return gs.Run(ctx, gr, keys, argv...).Err()
		},
	}
}
