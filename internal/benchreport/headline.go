package main

import (
	"fmt"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// row is one line of the headline: one of our figures against a peer's (a ratio) or
// against a bound, with the goal the project set for it, if any.
type row struct {
	what, peer string
	goal       string             // as the issue states it; "" for none
	met        func(float64) bool // nil: no goal
	figure     func(r *report) (v float64, shown string, ok bool)
	suite      string   // the suite whose run it reads
	benches    []string // the benchmarks of suite it reads
}

// ratioRow is ours over peer, both medians of unit in suite's run.
func ratioRow(suite, ours, peer, unit, what, peerWhat, goal string, met func(float64) bool) row {
	return row{what: what, peer: peerWhat, goal: goal, met: met, suite: suite, benches: []string{ours, peer},
		figure: func(r *report) (float64, string, bool) {
			a, okA := r.runs[suite].median(ours, unit)
			b, okB := r.runs[suite].median(peer, unit)
			if !okA || !okB || b == 0 {
				return 0, "", false
			}
			return a / b, fmt.Sprintf("%s (%s against %s)", times(a/b), figure(a, unit), figure(b, unit)), true
		}}
}

// valueRow is the median of unit of bench in suite's run.
func valueRow(suite, bench, unit, what, goal string, met func(float64) bool) row {
	return row{what: what, goal: goal, met: met, suite: suite, benches: []string{bench},
		figure: func(r *report) (float64, string, bool) {
			v, ok := r.runs[suite].median(bench, unit)
			return v, figure(v, unit), ok
		}}
}

func atMost(bound float64) func(float64) bool  { return func(v float64) bool { return v <= bound } }
func atLeast(bound float64) func(float64) bool { return func(v float64) bool { return v >= bound } }

// headline is the report's first table.
var headline = append([]row{
	ratioRow("limiter", "BenchmarkDecideLocked", "BenchmarkXTimeRateAllowN", nsPerOp,
		"`Set.Decide`, one token bucket, behind a mutex", "x/time/rate `AllowN` (behind its own)", "", nil),
	metricRow("memory", "BenchmarkDecideOneKeyPaired", "allown-ratio", "edgelimit-us", "allown-us",
		"memory store, one key, taking turns (against AllowN)", "x/time/rate `AllowN`", "at most 1.0x", atMost(1)),
	metricRow("memory", "BenchmarkDecideOneKeyPaired", "map-ratio", "edgelimit-us", "map-us",
		"memory store, one key, taking turns (against a map of limiters)", "x/time/rate, its limiter in a map behind a mutex", "", nil),
	ratioRow("memory", "BenchmarkDecideManyKeys", "BenchmarkXTimeRateManyKeys", nsPerOp,
		"memory store, 1e5 keys", "1e5 x/time/rate limiters in a map behind a mutex", "", nil),
	ratioRow("upstash", "BenchmarkStoreDecide/callers=1", "BenchmarkUpstashRatelimitJS/callers=1", perSecond,
		"Upstash store, 1 caller, decisions/s, pipelining off", "@upstash/ratelimit, same server and rule", "at least 1.0x", atLeast(1)),
	ratioRow("upstash", "BenchmarkStoreDecidePipelined/callers=16", "BenchmarkUpstashRatelimitJS/callers=16", perSecond,
		"Upstash store, 16 callers, decisions/s, pipelining on", "@upstash/ratelimit (automatic pipelining on)", "at least 1.0x", atLeast(1)),
	ratioRow("upstash", "BenchmarkStoreDecide/callers=16", "BenchmarkUpstashRatelimitJS/callers=16", perSecond,
		"Upstash store, 16 callers, decisions/s, pipelining off", "@upstash/ratelimit (automatic pipelining on)", "", nil),
	ratioRow("upstash", "BenchmarkStoreDecide/callers=1", "BenchmarkRedisDirect/callers=1", nsPerOp,
		"Upstash store (REST), 1 caller", "go-redis `EVALSHA` of the same script (RESP)", "", nil),
	valueRow("upstash", "BenchmarkStoreDecide/callers=1", allocsPerOp, "Upstash client, allocations per decision", "", nil),
	valueRow("upstash", "BenchmarkStoreDecide/callers=1", "requests/decision", "Upstash store, HTTP requests per decision", "", nil),
	valueRow("dynamodb", "BenchmarkDecide/callers=1", "requests/decision", "DynamoDB, requests per decision", "", nil),
	valueRow("dynamodb", "BenchmarkDecide/callers=1", "write-units/decision", "DynamoDB, write units per decision", "", nil),
	metricRow("redis", "BenchmarkGCRAPaired/callers=1", "p50-ratio", "edgelimit-p50-us", "redis_rate-p50-us",
		"Redis store, p50 latency, 1 caller (taking turns)", "redis_rate, same redis-server and GCRA rule", "", nil),
	metricRow("redis", "BenchmarkGCRAPaired/callers=16", "p50-ratio", "edgelimit-p50-us", "redis_rate-p50-us",
		"Redis store, p50 latency, 16 callers (taking turns)", "redis_rate, same redis-server and GCRA rule", "", nil),
	ratioRow("redis", "BenchmarkGCRA/edgelimit/callers=1", "BenchmarkGCRA/redis_rate/callers=1", allocsPerOp,
		"Redis store, allocations per decision", "redis_rate", "", nil),
	metricRow("redis", "BenchmarkScriptTime/allowed", "ratio", "edgelimit-mean90-us", "redis_rate-mean90-us",
		"Redis store, script time inside Redis (allowed)", "redis_rate's script", "", nil),
	ratioRow("hotcounter", "BenchmarkDecideDynamoDB/hot", "BenchmarkDecideDynamoDB/store_alone", "round-trips/decision",
		"hot counter on DynamoDB Local, round trips per decision", "the DynamoDB store alone", "", nil),
	metricRow("authorizer", "BenchmarkInvokeWarmPaired", "hello-ratio", "edgelimit-us", "hello-us",
		"authorizer warm invoke", "hello-world authorizer (aws-lambda-go's types and encoding/json), taking turns", "at most 1.0x", atMost(1)),
	valueRow("authorizer", "BenchmarkInvokeWarm/edgelimit", allocsPerOp, "authorizer warm invoke, allocations", "", nil),
}, coldStartRows()...)

// initGoal is the goal of a build's runtime init: the hello-world BenchmarkColdStart
// measures it against (its metrics' prefix), as the headline names it, and the bound.
type initGoal struct {
	peer, peerWhat string
	bound          float64
}

// initGoals are the runtime-init goals by backend; a backend not named has
// plainHelloGoal.
var initGoals = map[string]initGoal{
	"dynamodb": {"hello-dynamodb", "hello-world authorizer that makes a DynamoDB client (the SDK's default config) at init, started in the same rounds", 1.0},
}

var plainHelloGoal = initGoal{"hello", "hello-world authorizer, started in the same rounds", 1.4}

// maxSizeRatio is the goal of each build's bootstrap against the hello-world's.
const maxSizeRatio = 1.6

// coldStartRows are the cold start's rows: for each backend's authorizer build, its
// runtime init against its hello-world and its bootstrap's size against the plain one's.
func coldStartRows() []row {
	var rows []row
	for _, b := range testenv.AuthorizerBuilds {
		rows = append(rows, runtimeInitRow(b))
	}
	for _, b := range testenv.AuthorizerBuilds {
		rows = append(rows, row{what: "stripped linux/arm64 bootstrap, " + b.Title + " build",
			peer: "hello-world authorizer, built the same way", goal: fmt.Sprintf("at most %.1fx", maxSizeRatio), met: atMost(maxSizeRatio),
			figure: func(r *report) (float64, string, bool) {
				a, h := r.sizes.authorizer[b.Backend], r.sizes.hello
				if a == 0 || h == 0 {
					return 0, "", false
				}
				v := float64(a) / float64(h)
				return v, fmt.Sprintf("%s (%s against %s)", times(v), megabytes(a), megabytes(h)), true
			}})
	}
	return rows
}

// runtimeInitRow is b's runtime init over its hello-world's, with its goal.
func runtimeInitRow(b testenv.AuthorizerBuild) row {
	g, ok := initGoals[b.Backend]
	if !ok {
		g = plainHelloGoal
	}
	return row{what: "runtime init, " + b.Title + " build (the emulator's `INIT REPORT`, median of the rounds' ratios)",
		peer: g.peerWhat, goal: fmt.Sprintf("at most %.1fx", g.bound), met: atMost(g.bound),
		suite: "coldstart", benches: []string{"BenchmarkColdStart"}, figure: func(r *report) (float64, string, bool) {
			run := r.runs["coldstart"]
			v, ok := run.median("BenchmarkColdStart", b.Backend+"-runtime-init-ratio")
			a, _ := run.median("BenchmarkColdStart", b.Backend+"-runtime-init-ms")
			h, _ := run.median("BenchmarkColdStart", g.peer+"-runtime-init-ms")
			return v, fmt.Sprintf("%s (%s against %s)", times(v), millis(a), millis(h)), ok
		}}
}

// metricRow is a ratio a benchmark reports itself (ratio), shown with the two figures
// it is made of (ours, peer: microseconds).
func metricRow(suite, bench, ratio, ours, peer, what, peerWhat, goal string, met func(float64) bool) row {
	return row{what: what, peer: peerWhat, goal: goal, met: met, suite: suite, benches: []string{bench},
		figure: func(r *report) (float64, string, bool) {
			run := r.runs[suite]
			v, ok := run.median(bench, ratio)
			a, okA := run.median(bench, ours)
			b, okB := run.median(bench, peer)
			if !ok || !okA || !okB {
				return 0, "", false
			}
			return v, fmt.Sprintf("%s (%s against %s)", times(v), duration(a*1e3), duration(b*1e3)), true
		}}
}
