package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// envClocks carries a clocksJob (JSON) to a child process of TestInterleavedClocks.
const envClocks = "EDGELIMIT_DDB_CLOCKS_JOB"

// The rules of TestInterleavedClocks: none denies in the test's few hundred requests,
// and the bucket's TAT runs ahead of the clock (10 a second), so every request after
// the first finds it not full.
var clocksRules = []string{
	`{"name": "day", "algorithm": "fixed_window", "limit": 1000000, "period": "24h"}`,
	`{"name": "slide", "algorithm": "sliding_window", "limit": 1000000, "period": "24h"}`,
	`{"name": "bucket", "algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 100000}`,
	`{"name": "inflight", "algorithm": "concurrency", "limit": 1000000, "lease": "24h"}`,
}

// clocksJob is one child's part: Goroutines x Each decisions on Key from Start (Unix
// microseconds), each at the child's own advancing clock, the real one plus Skew.
type clocksJob struct {
	Endpoint, Table, Key string
	Start, Skew          int64
	Goroutines, Each     int
}

// maybeClocksChild runs a child's clocksJob when this process was started as one,
// prints "admitted <n> contention <n> errors <n>" and exits.
func maybeClocksChild() {
	spec := os.Getenv(envClocks)
	if spec == "" {
		return
	}
	var j clocksJob
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	admitted, contention, failed := j.run()
	fmt.Printf("admitted %d contention %d errors %d\n", admitted, contention, failed)
	os.Exit(0)
}

func (j clocksJob) run() (admitted, contention, failed int64) {
	rules := make([]limiter.Rule, len(clocksRules))
	for i, js := range clocksRules {
		rules[i], _ = limiter.ParseRule([]byte(js)) // the test parsed them first
	}
	set, _ := limiter.NewSet(rules, nil)
	st := NewCounters(newClient(j.Endpoint), j.Table, CountersConfig{})
	var a, c, f atomic.Int64
	time.Sleep(time.Until(time.UnixMicro(j.Start)))
	var wg sync.WaitGroup
	for range j.Goroutines {
		wg.Go(func() {
			for range j.Each {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				d, err := store.DecideOne(ctx, st, j.Key, set, limiter.Micros(time.Now())+j.Skew, 1)
				cancel()
				switch {
				case errors.Is(err, ErrContention):
					c.Add(1)
				case err != nil:
					f.Add(1)
					fmt.Fprintln(os.Stderr, "child:", err)
				case d.Allowed:
					a.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return a.Load(), c.Load(), f.Load()
}

// TestInterleavedClocks: 3 OS processes x 16 goroutines decide one key of a fixed
// window, a sliding window, a token bucket and a concurrency rule on DynamoDB Local,
// each process on its own advancing clock (the real one, 3 ms ahead, 3 ms behind), so
// that the instants of the writes interleave across processes. Every decision is
// answered (no ErrContention: relative updates do not condition on the clock-skew
// attribute l), every one is admitted, and the windows' stored counts and the slots
// held are exactly the admitted total.
// It failed before relative updates left l alone: a write whose instant was behind
// the item's l failed its condition, and three in a row were ErrContention.
func TestInterleavedClocks(t *testing.T) {
	st, _, table := newTestStore(t)
	set := storetest.Set(t, nil, clocksRules...)
	key := storetest.Key(t, "clocks")
	start := time.Now().Add(2 * time.Second)
	skews := []int64{0, 3_000, -3_000}
	const goroutines, each = 16, 10
	var total, contention, failed int64
	outs := make([]strings.Builder, len(skews))
	cmds := make([]*exec.Cmd, len(skews))
	for i, skew := range skews {
		spec, _ := json.Marshal(clocksJob{Endpoint: testenv.DynamoDBURL(t), Table: table, Key: key,
			Start: start.UnixMicro(), Skew: skew, Goroutines: goroutines, Each: each})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmds[i] = exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), envClocks+"="+string(spec))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, outs[i].String())
		}
		var a, c, f int64
		line := outs[i].String()
		if _, err := fmt.Sscanf(line[strings.LastIndex(strings.TrimSpace(line), "\n")+1:], "admitted %d contention %d errors %d", &a, &c, &f); err != nil {
			t.Fatalf("child %d printed %q: %v", i, line, err)
		}
		total, contention, failed = total+a, contention+c, failed+f
	}
	n := int64(len(skews) * goroutines * each)
	if contention != 0 || failed != 0 || total != n {
		t.Errorf("%d decisions: %d admitted, %d ErrContention, %d other errors; want all admitted", n, total, contention, failed)
	}
	peek := make([]limiter.Outcome, set.Len())
	if _, err := st.Peek(context.Background(), key, set, limiter.Micros(time.Now())+3_000, peek); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 3} { // the windows and the slots held
		if used := set.Rule(i).Limit - peek[i].Remaining; used != total {
			t.Errorf("rule %q counts %d, admitted %d", set.Rule(i).Name, used, total)
		}
	}
}
