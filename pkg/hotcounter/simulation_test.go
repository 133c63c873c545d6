package hotcounter_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// scenario is one row of the simulation: offered decisions per second, spread over
// instances uniformly at random, for seconds of virtual time, on one tenant-scope
// counter of rule, with DynamoDB modelled as writeCap writes per second per key.
type scenario struct {
	name      string
	rule      string
	offered   int64 // decisions per second, Poisson
	instances int
	seconds   int64
	writeCap  int64
	shards    int // 0: the lease design; else plain sharding over this many keys
}

// outcome is what a scenario measured.
type outcome struct {
	decisions, admitted, allowed int64 // allowed: one exact limiter on the same trace
	writes, throttled, failMode  int64
	peakWrites                   int64 // most writes on one key in one second
	excess                       int64 // for a bucket: how far the admitted requests exceed it
	lost, maxLease               int64
}

func (o outcome) falseDenials() int64 { return max(o.allowed-o.admitted, 0) }
func (o outcome) overshoot() int64    { return max(o.admitted-o.allowed, 0) }

// arrival is one decision of the trace: its instant and the instance (or shard) taking it.
type arrival struct {
	at              int64
	instance, shard int
}

// trace returns the Poisson arrivals of sc, deterministic in seed.
func (sc scenario) trace(seed uint64) []arrival {
	rng := rand.New(rand.NewPCG(seed, 2))
	start := limiter.Micros(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	end := start + sc.seconds*1_000_000
	var out []arrival
	at := float64(start)
	for {
		at += rng.ExpFloat64() * 1e6 / float64(sc.offered)
		if int64(at) >= end {
			return out
		}
		out = append(out, arrival{at: int64(at), instance: rng.IntN(sc.instances), shard: rng.IntN(max(sc.shards, 1))})
	}
}

// run plays sc and returns what it measured.
func (sc scenario) run(t testing.TB) outcome {
	trace := sc.trace(1)
	set := storetest.Set(t, nil, sc.rule)
	o := outcome{decisions: int64(len(trace)), allowed: exactAllowed(t, set, trace)}
	model := newCapacityStore(memory.NewCounters(memory.CountersConfig{}), sc.writeCap)
	var admitted []int64
	if sc.shards > 0 {
		admitted = sc.runShards(t, model, trace, &o)
	} else {
		admitted = sc.runLeases(t, model, set, trace, &o)
	}
	o.admitted = int64(len(admitted))
	o.writes, o.throttled = model.counts()
	o.peakWrites = model.peak()
	if set.Rule(0).IsBucket() {
		o.excess = bucketExcess(set.Rule(0), admitted)
	}
	return o
}

func (sc scenario) runLeases(t testing.TB, model store.Counters, set *limiter.Set, trace []arrival, o *outcome) []int64 {
	instances := make([]*hotcounter.Store, sc.instances)
	for i := range instances {
		instances[i] = hotcounter.New(model, hotcounter.Config{Sleep: func(context.Context, time.Duration) error { return nil }})
	}
	admitted := decideAll(t, trace, o, func(a arrival) (limiter.Decision, error) {
		return store.DecideOne(context.Background(), instances[a.instance], "tenant", set, a.at, 1)
	})
	for _, s := range instances {
		st := s.Stats()
		o.lost += st.Lost
		o.maxLease = max(o.maxLease, st.MaxLease)
	}
	return admitted
}

// runShards is plain sharding: sc.shards keys, each with 1/shards of the limit and
// burst, the shard of each decision picked at random; every decision is one write.
func (sc scenario) runShards(t testing.TB, model store.Counters, trace []arrival, o *outcome) []int64 {
	r, err := limiter.ParseRule([]byte(sc.rule))
	if err != nil {
		t.Fatal(err)
	}
	r = r.Normalized()
	r.Limit, r.Burst = r.Limit/int64(sc.shards), r.Burst/int64(sc.shards)
	set, err := limiter.NewSet([]limiter.Rule{r}, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, sc.shards)
	for i := range keys {
		keys[i] = fmt.Sprint("tenant#", i)
	}
	return decideAll(t, trace, o, func(a arrival) (limiter.Decision, error) {
		return store.DecideOne(context.Background(), model, keys[a.shard], set, a.at, 1)
	})
}

// decideAll decides every arrival; a throttling error is answered by a closed fail
// mode (denied) and counted; any other error fails the test. It returns the instants
// admitted.
func decideAll(t testing.TB, trace []arrival, o *outcome, decide func(arrival) (limiter.Decision, error)) []int64 {
	var admitted []int64
	for _, a := range trace {
		d, err := decide(a)
		switch {
		case errors.Is(err, store.ErrThrottled):
			o.failMode++
		case err != nil:
			t.Fatal(err)
		case d.Allowed:
			admitted = append(admitted, a.at)
		}
	}
	return admitted
}

// exactAllowed is what one exact limiter admits of the whole trace.
func exactAllowed(t testing.TB, set *limiter.Set, trace []arrival) int64 {
	states := set.NewStates()
	var n int64
	for _, a := range trace {
		d, err := set.Decide(states, a.at, 1)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			n++
		}
	}
	return n
}

// bucketExcess is the least X such that the admitted instants (in order) conform to
// the bucket r with its burst raised by X: how far they over-admit at their worst.
func bucketExcess(r limiter.Rule, admitted []int64) int64 {
	r = r.Normalized()
	period := r.Period.Micros()
	// In units of 1/limit microsecond, so that the emission interval is exact.
	T, tol := period, r.Burst*period
	var tat, worst int64
	for _, at := range admitted {
		now := at * r.Limit
		tat = max(tat, now) + T
		if over := tat - now - tol; over > 0 {
			worst = max(worst, (over+T-1)/T)
		}
	}
	return worst
}

const (
	bucket5000 = `{"algorithm": "token_bucket", "limit": 5000, "period": "1s"}`
	window5000 = `{"algorithm": "fixed_window", "limit": 5000, "period": "1s"}`
)

// scenarios are the rows of the table in docs/backends.md; show marks the rows held
// to the bounds.
var scenarios = []struct {
	scenario
	show bool
}{
	{scenario{name: "leases", rule: bucket5000, offered: 10_000, instances: 50}, true},
	{scenario{name: "leases, fixed window", rule: window5000, offered: 10_000, instances: 50}, true},
	{scenario{name: "leases, 20,000/s offered", rule: bucket5000, offered: 20_000, instances: 50}, true},
	{scenario{name: "leases, offered = limit", rule: bucket5000, offered: 5_000, instances: 50}, false},
	{scenario{name: "leases, 200 instances", rule: bucket5000, offered: 10_000, instances: 200}, false},
	{scenario{name: "leases, 1,000 instances", rule: bucket5000, offered: 10_000, instances: 1000}, false},
	{scenario{name: "sharding S=10", rule: bucket5000, offered: 10_000, instances: 50, shards: 10}, false},
	{scenario{name: "sharding S=20", rule: bucket5000, offered: 10_000, instances: 50, shards: 20}, false},
	{scenario{name: "sharding S=10, offered = limit", rule: bucket5000, offered: 5_000, instances: 50, shards: 10}, false},
}

var update = flag.Bool("update", false, "rewrite the simulation table in docs/backends.md")

// TestSimulation plays every scenario for 60 s of virtual time against DynamoDB
// modelled as 1,000 writes per second per key, holds the Show rows to the bounds
// (admitted within 1% of what one exact limiter allows, false denials at most 1% of
// decisions and within the documented formula, no fail mode, writes at most 10% of
// decisions, the overshoot within its formula), and requires the table in
// docs/backends.md to be the one it measured (go test ./pkg/hotcounter -run
// TestSimulation -update rewrites it).
func TestSimulation(t *testing.T) {
	var rows []string
	for _, sc := range scenarios {
		sc.seconds, sc.writeCap = 60, 1000
		if raceEnabled {
			if !sc.show {
				continue
			}
			sc.seconds = 10
		}
		o := sc.run(t)
		t.Logf("%s: %+v", sc.name, o)
		if sc.show {
			checkBounds(t, sc.scenario, o)
		}
		rows = append(rows, o.row(sc.scenario))
	}
	if !raceEnabled {
		checkDoc(t, tableHeader+strings.Join(rows, "\n")+"\n")
	}
}

// checkBounds holds a lease scenario to the bounds and to the formulas of
// docs/backends.md: overshoot at most min(L x rate, N x B) for a bucket (0 for a
// window), false denials at most what leases lost and held (N x B) at the end, and at
// most N x B per window or lease time.
func checkBounds(t *testing.T, sc scenario, o outcome) {
	t.Helper()
	leaseTime := hotcounter.DefaultLeaseTime.Microseconds()
	nb := int64(sc.instances) * o.maxLease
	periods := sc.seconds * 1_000_000 / leaseTime // lease times (buckets) or more than the windows
	checks := []struct {
		what      string
		got, most int64
	}{
		{"admitted - allowed (1%)", abs(o.admitted - o.allowed), o.allowed / 100},
		{"false denials (1% of decisions)", o.falseDenials(), o.decisions / 100},
		{"false denials (lost + N x B)", o.falseDenials(), o.lost + nb},
		{"false denials (N x B per lease time)", o.falseDenials(), nb * periods},
		{"fail-mode answers", o.failMode, 0},
		{"writes (10% of decisions)", o.writes, o.decisions / 10},
		{"overshoot", o.overshoot(), 0},
		{"bucket excess (min(L x rate, N x B))", o.excess, min(8*leaseTime*5000/1_000_000, nb)},
	}
	for _, c := range checks {
		if c.got > c.most {
			t.Errorf("%s: %s is %d, above %d", sc.name, c.what, c.got, c.most)
		}
	}
}

func abs(n int64) int64 { return max(n, -n) }

const tableHeader = `| design | instances | offered/s | admitted | exact limiter | false denials | writes/decision | peak writes/s on a key | throttled | fail mode | leased max B | lost units |
|---|---|---|---|---|---|---|---|---|---|---|---|
`

func (o outcome) row(sc scenario) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %d (%.2f%%) | %.4f | %d | %d | %d | %d | %d |",
		sc.name, sc.instances, sc.offered, o.admitted, o.allowed, o.falseDenials(),
		100*float64(o.falseDenials())/float64(o.decisions), float64(o.writes)/float64(o.decisions),
		o.peakWrites, o.throttled, o.failMode, o.maxLease, o.lost)
}

// The simulation table sits between these lines of docs/backends.md.
const (
	docPath  = "../../docs/backends.md"
	docBegin = "<!-- simulation table: go test ./pkg/hotcounter -run TestSimulation -update -->\n"
	docEnd   = "<!-- end of the simulation table -->\n"
)

func checkDoc(t *testing.T, table string) {
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, docBegin)
	_, after, ok2 := strings.Cut(rest, docEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no simulation table between %q and %q", docPath, docBegin, docEnd)
	}
	want := before + docBegin + table + docEnd + after
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != doc {
		t.Fatalf("the simulation table in %s is out of date:\n%s\ngo test ./pkg/hotcounter -run TestSimulation -update rewrites it", docPath, table)
	}
}
