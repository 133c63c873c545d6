package upstash

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

var benchRule = `{"algorithm": "token_bucket", "limit": 1000, "period": "1s", "burst": 100}`

// BenchmarkStoreDecide: Counters.Decide through the local Upstash-compatible server
// (HTTP, JSON) to redis-server, over loopback, with the HTTP requests per decision
// (each one command: the script's EVALSHA), as the client counts them
// (TestRequestsAreCountedAtTheServer checks that count against a proxy's). The client
// is the one production uses, with its own connection pool.
func BenchmarkStoreDecide(b *testing.B) {
	benchStoreDecide(b, newTestStore(b, nil))
}

// BenchmarkStoreDecidePipelined is BenchmarkStoreDecide with the client's pipelining
// on (upstashrest.Config.Pipelining): the concurrent callers' scripts share requests.
func BenchmarkStoreDecidePipelined(b *testing.B) {
	url, token := testenv.UpstashURL(b)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token, Pipelining: true})
	if err != nil {
		b.Fatal(err)
	}
	benchStoreDecide(b, NewCounters(c, CountersConfig{}))
}

// benchStoreDecide decides benchRule on st at 1 and 16 callers, each on its own key,
// and reports the requests per decision that its client sent.
func benchStoreDecide(b *testing.B, st *Counters) {
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			before := st.client.Requests()
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				_, err := store.DecideOne(ctx, st, key, set, at+int64(i)*100, 1)
				return err
			})
			b.ReportMetric(float64(st.client.Requests()-before)/float64(b.N), "requests/decision")
		})
	}
}

// BenchmarkUpstashRatelimitJS is BenchmarkStoreDecide's peer: @upstash/ratelimit (npm)
// on the same local server and rule, with as many callers, each on its own identifier
// (testdata/ratelimit_bench.mjs). Node times the b.N decisions itself: ns/op and
// decisions/s leave its start and the script's loading out.
func BenchmarkUpstashRatelimitJS(b *testing.B) {
	url, token := testenv.UpstashURL(b)
	modules, node := testenv.NodeModules(b), testenv.Node(b)
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			cmd := exec.Command(node, "testdata/ratelimit_bench.mjs")
			cmd.Env = append(os.Environ(), "UPSTASH_URL="+url, "UPSTASH_TOKEN="+token, "NODE_MODULES="+modules,
				"KEY_PREFIX="+storetest.Key(b, "js"), "N="+strconv.Itoa(b.N), "CALLERS="+strconv.Itoa(callers))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			var res struct{ N, Callers, NS float64 }
			if err == nil {
				err = json.Unmarshal(out, &res)
			}
			if err != nil || res.N != float64(b.N) || res.NS <= 0 {
				b.Fatalf("node: %v, %+v\n%s%s", err, res, out, stderr.Bytes())
			}
			b.ReportMetric(res.NS/res.N, "ns/op")
			b.ReportMetric(res.N/(res.NS/1e9), "decisions/s")
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
	script := redis.NewScript(luascript.DecideScript().Source())
	set := storetest.Set(b, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			storetest.BenchCallers(b, callers, func(ctx context.Context, key string, i int) error {
				keys, args := luascript.DecideArgs([]store.Counter{{Key: key, Set: set}}, at+int64(i)*100, 1, true, 0)
				return script.Run(ctx, rdb, keys, args...).Err()
			})
		})
	}
}
