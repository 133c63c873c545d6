package main

// suite is one `go test -bench` run: a package's benchmarks with their peers, so that
// both sides see the same machine at the same time.
type suite struct {
	name      string // the key comparisons name it by
	title     string // its section in docs/benchmarks.md
	pkg       string // the package, relative to the repository's root
	bench     string // the -bench pattern
	benchtime string
	count     int
}

// suites are the runs of `make bench`, each a package with its benchmarks' peers.
var suites = []suite{
	{name: "limiter", title: "The limiter core (Set.Decide) against golang.org/x/time/rate", pkg: "./pkg/limiter",
		bench: "^Benchmark(XTimeRateAllowN|DecideLocked|TokenBucketStep|Decide|DecideRuleSet)$", benchtime: "200000x", count: 6},
	{name: "memory", title: "The memory store against golang.org/x/time/rate", pkg: "./pkg/store/memory",
		bench: "^Benchmark(XTimeRateAllowN|XTimeRateOneKey|DecideOneKey|DecideOneKeyPaired|DecideManyKeys|XTimeRateManyKeys)$", benchtime: "200000x", count: 6},
	{name: "upstash", title: "The Upstash store against @upstash/ratelimit and go-redis, over loopback", pkg: "./pkg/store/upstash",
		bench: "^Benchmark(StoreDecide|StoreDecidePipelined|UpstashRatelimitJS|RedisDirect)$", benchtime: "2000x", count: 3},
	{name: "dynamodb", title: "The DynamoDB store against DynamoDB Local", pkg: "./pkg/store/dynamodb",
		bench: "^BenchmarkDecide$", benchtime: "1000x", count: 1},
	{name: "redis", title: "The Redis store against github.com/go-redis/redis_rate", pkg: "./pkg/store/redis",
		bench: "^Benchmark(GCRA|GCRAPaired|ScriptTime|Clients|ClientsPaired)$", benchtime: "3000x", count: 3},
	{name: "hotcounter", title: "Hot counters (pkg/hotcounter) against the store alone", pkg: "./pkg/hotcounter",
		bench: "^BenchmarkDecide(DynamoDB)?$", benchtime: "2s", count: 1},
	{name: "authorizer", title: "The authorizer's warm path against the hello-world authorizer", pkg: "./internal/authorizer",
		bench: "^BenchmarkInvoke(Warm|WarmPaired|Denied)$", benchtime: "5000x", count: 12},
	{name: "coldstart", title: "Cold start under the Lambda runtime emulator, against the hello-world authorizer", pkg: "./functions/authorizer",
		bench: "^BenchmarkColdStart$", benchtime: "120x", count: 1},
}

// The units of go test's output the report reads.
const (
	nsPerOp     = "ns/op"
	allocsPerOp = "allocs/op"
	bytesPerOp  = "B/op"
	perSecond   = "decisions/s"
)
