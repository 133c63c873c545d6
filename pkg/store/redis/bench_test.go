package redis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// One GCRA rule, as each side writes it: 100,000 per second with a burst of 100,000,
// which no caller here exhausts, so that every decision is an allowed one (the path
// that writes).
var (
	gcraRule  = `{"algorithm": "token_bucket", "limit": 100000, "period": "1s", "burst": 100000}`
	gcraLimit = redis_rate.Limit{Rate: 100000, Burst: 100000, Period: time.Second}
)

// gcraStep is how far each caller's clock moves per decision: the rule's rate exactly.
const gcraStep = 10 // microseconds

// BenchmarkGCRA decides one GCRA rule on the same redis-server, ours (Counters.Decide,
// which runs bucket.lua) beside the peer github.com/go-redis/redis_rate/v10 (its own
// script, through go-redis), at 1 and 16 callers: per-decision p50 and p99 latency,
// decisions/s and allocs/op. BenchmarkGCRAPaired compares the medians under one load;
// BenchmarkScriptTime the time of both scripts inside Redis.
func BenchmarkGCRA(b *testing.B) {
	benchEach(b, [2]string{"edgelimit", "redis_rate"}, gcraSides(b))
}

// BenchmarkGCRAPaired is BenchmarkGCRA with the two taking turns in short phases (each
// caller making phaseLen decisions of ours, then as many of redis_rate's, and again),
// so that both meet the same load on a shared machine: the median latency of each
// (edgelimit-p50-us, redis_rate-p50-us) and ours/theirs (p50-ratio), at 1 and 16
// callers. b.N counts the decisions of each.
func BenchmarkGCRAPaired(b *testing.B) {
	benchTurns(b, [2]string{"edgelimit", "redis_rate"}, gcraSides(b))
}

// side is one decision of a benchmark, by caller key and call number.
type side = func(ctx context.Context, key string, i int) error

// benchEach runs each side alone (storetest.BenchCallers), at 1 and 16 callers.
func benchEach(b *testing.B, names [2]string, sides [2]side) {
	for _, callers := range []int{1, 16} {
		for i, name := range names {
			b.Run(fmt.Sprintf("%s/callers=%d", name, callers), func(b *testing.B) {
				storetest.BenchCallers(b, callers, sides[i])
			})
		}
	}
}

// benchTurns runs the sides taking turns (takeTurns), at 1 and 16 callers, and reports
// the median latency of each and the first's over the second's.
func benchTurns(b *testing.B, names [2]string, sides [2]side) {
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			lat := takeTurns(b, callers, sides)
			first, second := median(lat[0]), median(lat[1])
			b.ReportMetric(first, names[0]+"-p50-us")
			b.ReportMetric(second, names[1]+"-p50-us")
			b.ReportMetric(first/second, "p50-ratio")
		})
	}
}

// gcraSides returns one allowed decision of gcraRule by our Counters and one by
// redis_rate, both on the test redis-server; a denial is an error.
func gcraSides(b *testing.B) [2]side {
	addr := testenv.RedisAddr(b)
	st := NewCounters(newTestClient(b, Config{Addrs: []string{addr}}), CountersConfig{})
	set := storetest.Set(b, nil, gcraRule)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 32})
	b.Cleanup(func() { rdb.Close() })
	peer := redis_rate.NewLimiter(rdb)
	at := limiter.Micros(time.Now())
	return [2]side{
		func(ctx context.Context, key string, i int) error {
			d, err := store.DecideOne(ctx, st, key, set, at+int64(i)*gcraStep, 1)
			if err == nil && !d.Allowed {
				err = fmt.Errorf("decision %d denied: %+v", i, d)
			}
			return err
		},
		func(ctx context.Context, key string, i int) error {
			res, err := peer.Allow(ctx, key, gcraLimit)
			if err == nil && res.Allowed != 1 {
				err = fmt.Errorf("decision %d denied: %+v", i, res)
			}
			return err
		},
	}
}

// phaseLen is how many decisions each caller makes in one turn of BenchmarkGCRAPaired.
const phaseLen = 25

// takeTurns runs b.N calls of each side among callers goroutines (each with a key of
// its own), the sides taking turns of phaseLen calls per caller, and returns the
// latency of every call of each side.
func takeTurns(b *testing.B, callers int, sides [2]side) [2][]time.Duration {
	ctx := context.Background()
	var lat [2][]time.Duration
	lat[0], lat[1] = make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	keys := make([]string, callers)
	for c := range keys {
		keys[c] = storetest.Key(b, fmt.Sprint("caller", c))
	}
	var mu sync.Mutex
	b.ResetTimer()
	for done := 0; done < b.N; done += callers * phaseLen {
		for side, run := range sides {
			var wg sync.WaitGroup
			for c := range callers {
				wg.Go(func() {
					mine := make([]time.Duration, 0, phaseLen)
					for i := done / callers; i < done/callers+phaseLen; i++ {
						start := time.Now()
						if err := run(ctx, keys[c], i); err != nil {
							b.Error(err)
							return
						}
						mine = append(mine, time.Since(start))
					}
					mu.Lock()
					lat[side] = append(lat[side], mine...)
					mu.Unlock()
				})
			}
			wg.Wait()
		}
	}
	return lat
}

// median returns the median of d in microseconds.
func median(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1e3
}

// BenchmarkScriptTime measures the time each script runs inside Redis, with the same
// harness for both: the server's slow log (slowlog-log-slower-than 0, for the length
// of the benchmark) timing every EVALSHA. Each iteration is one decision of ours and
// one of redis_rate's, alternated on the same server, allowed ones, then denied ones
// (a rule of 1 per hour). Reported: the median and the mean of the fastest 90% (the
// rest are the server losing its core to other processes), in microseconds, and
// ours/theirs of the trimmed means (ratio).
func BenchmarkScriptTime(b *testing.B) {
	addr := testenv.RedisAddr(b)
	c := newTestClient(b, Config{Addrs: []string{addr}})
	restore := slowlogAll(b, c)
	defer restore()
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, PoolSize: 4})
	defer rdb.Close()
	peer := redis_rate.NewLimiter(rdb)
	st := NewCounters(c, CountersConfig{})
	for _, mode := range []struct {
		name string
		rule string
		peer redis_rate.Limit
	}{
		{"allowed", gcraRule, gcraLimit},
		{"denied", `{"algorithm": "token_bucket", "limit": 1, "period": "1h"}`, redis_rate.Limit{Rate: 1, Burst: 1, Period: time.Hour}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			set := storetest.Set(b, nil, mode.rule)
			key := storetest.Key(b, "ours")
			peerKey := storetest.Key(b, "theirs")
			ours, theirs := luascript.HashKey(slotKey(key)), "rate:"+peerKey
			at := limiter.Micros(time.Now())
			log := &slowlog{c: c, keys: map[string][]int64{ours: nil, theirs: nil}}
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				if _, err := store.DecideOne(ctx, st, key, set, at+int64(i)*gcraStep, 1); err != nil {
					b.Fatal(err)
				}
				if _, err := peer.Allow(ctx, peerKey, mode.peer); err != nil {
					b.Fatal(err)
				}
				if i%200 == 199 {
					log.read(b)
				}
			}
			log.read(b)
			b.StopTimer()
			if b.N >= 100 { // not the first run, of one iteration
				o, t := log.report(b, ours, "edgelimit"), log.report(b, theirs, "redis_rate")
				b.ReportMetric(o/t, "ratio")
			}
		})
	}
}

// slowlogAll makes the server log every command in its slow log and returns what
// puts the old settings back.
func slowlogAll(b *testing.B, c *Client) func() {
	ctx := context.Background()
	old, err := c.Do(ctx, func(bd rueidis.Builder) rueidis.Completed {
		return bd.ConfigGet().Parameter("slowlog-*").Build()
	}).AsStrMap()
	if err != nil {
		b.Fatal(err)
	}
	set := func(name, value string) {
		if err := c.Do(ctx, func(bd rueidis.Builder) rueidis.Completed {
			return bd.ConfigSet().ParameterValue().ParameterValue(name, value).Build()
		}).Error(); err != nil {
			b.Fatal(err)
		}
	}
	set("slowlog-max-len", "2048")
	set("slowlog-log-slower-than", "0")
	c.Do(ctx, func(bd rueidis.Builder) rueidis.Completed { return bd.SlowlogReset().Build() })
	return func() {
		set("slowlog-log-slower-than", old["slowlog-log-slower-than"])
		set("slowlog-max-len", old["slowlog-max-len"])
	}
}

// slowlog collects the durations of the EVALSHA and EVAL commands on keys.
type slowlog struct {
	c    *Client
	keys map[string][]int64 // key -> durations in microseconds
}

// read takes the slow log's entries and empties it.
func (l *slowlog) read(b *testing.B) {
	ctx := context.Background()
	entries, err := l.c.Do(ctx, func(bd rueidis.Builder) rueidis.Completed {
		return bd.SlowlogGet().Count(-1).Build()
	}).ToArray()
	if err != nil {
		b.Fatal(err)
	}
	l.c.Do(ctx, func(bd rueidis.Builder) rueidis.Completed { return bd.SlowlogReset().Build() })
	for _, e := range entries {
		fields, err := e.ToArray()
		if err != nil || len(fields) < 4 {
			b.Fatalf("slow log entry %v: %v", e, err)
		}
		us, err1 := fields[2].AsInt64()
		args, err2 := fields[3].AsStrSlice()
		if err1 != nil || err2 != nil || len(args) < 4 || (args[0] != "EVALSHA" && args[0] != "evalsha") {
			continue
		}
		if d, ok := l.keys[args[3]]; ok {
			l.keys[args[3]] = append(d, us)
		}
	}
}

// report reports the median and the trimmed mean of key's durations, as name-p50-us
// and name-mean90-us, and returns the trimmed mean.
func (l *slowlog) report(b *testing.B, key, name string) float64 {
	d := slices.Clone(l.keys[key])
	if len(d) < 10 {
		b.Fatalf("%s: the slow log held %d of its calls", name, len(d))
	}
	slices.Sort(d)
	fast := d[:len(d)*9/10]
	var sum int64
	for _, v := range fast {
		sum += v
	}
	mean := float64(sum) / float64(len(fast))
	b.ReportMetric(float64(d[len(d)/2]), name+"-p50-us")
	b.ReportMetric(mean, name+"-mean90-us")
	b.Logf("%s: %d calls timed; median %s us, trimmed mean %.2f us", name, len(d), strconv.FormatInt(d[len(d)/2], 10), mean)
	return mean
}

// BenchmarkSettlePaired compares a settle with the decision it settles, on the test
// redis-server, taking turns (takeTurns): each decision is one request over three
// counters (route, tenant, key) of a fixed window and a concurrency rule, and each
// settle refunds one unit of it and frees its slots, at real instants. Reported: the
// median latency of each (decide-p50-us, settle-p50-us) and decide/settle (p50-ratio),
// at 1 and 16 callers.
func BenchmarkSettlePaired(b *testing.B) {
	st := NewCounters(newTestClient(b, Config{Addrs: []string{testenv.RedisAddr(b)}}), CountersConfig{})
	set := storetest.Set(b, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 1000000, "period": "1m"}`,
		`{"name": "c", "algorithm": "concurrency", "limit": 1000000, "lease": "60s"}`)
	var reserved sync.Map // key and call number -> the decision's instant
	counters := func(key string) []store.Counter {
		return []store.Counter{{Key: key + "r", Set: set}, {Key: key + "t", Set: set}, {Key: key + "k", Set: set}}
	}
	benchTurns(b, [2]string{"decide", "settle"}, [2]side{
		func(ctx context.Context, key string, i int) error {
			at := limiter.Micros(time.Now())
			outs := make([]limiter.Decision, 3)
			if err := st.Decide(ctx, counters(key), at, 2, outs); err != nil {
				return err
			}
			reserved.Store(key+strconv.Itoa(i), at)
			return nil
		},
		func(ctx context.Context, key string, i int) error {
			at, _ := reserved.LoadAndDelete(key + strconv.Itoa(i))
			now := limiter.Micros(time.Now())
			s := store.Settlement{ID: fmt.Sprintf("b%x-%d", now, i), At: at.(int64), Now: now, Expires: at.(int64) + 60_000_000, Delta: -1}
			applied, err := st.Settle(ctx, counters(key), s)
			if err == nil && !applied {
				err = fmt.Errorf("settle %d not applied", i)
			}
			return err
		},
	})
}
