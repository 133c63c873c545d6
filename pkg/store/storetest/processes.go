package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// The environment of a child process started by Processes.
const (
	envChild      = "EDGELIMIT_STORETEST_CHILD" // set in children: "1"
	envChildJob   = "EDGELIMIT_STORETEST_JOB"   // the job, as JSON
	childDeadline = 2 * time.Minute
)

// job is what every child process does: goroutines x each decisions at At, goroutine
// g deciding the counters of caller g mod len(Callers).
type job struct {
	Callers    [][]jobCounter `json:"callers"`
	At         int64          `json:"at"`
	Goroutines int            `json:"goroutines"`
	Each       int            `json:"each"`
}

// jobCounter is one counter of a caller's decisions: a key and its rules (JSON).
type jobCounter struct {
	Key   string   `json:"key"`
	Rules []string `json:"rules"`
}

// MaybeChild turns this process into a child of Processes when it was started as one:
// it runs the job against the Store newStore returns, prints "admitted N N ..." (per
// caller), and exits. A backend's TestMain calls it before m.Run.
func MaybeChild(newStore func() (store.Counters, error)) {
	if os.Getenv(envChild) != "1" {
		return
	}
	n, err := runChild(newStore)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Println("admitted", strings.Trim(fmt.Sprint(n), "[]"))
	os.Exit(0)
}

func runChild(newStore func() (store.Counters, error)) ([]int64, error) {
	var j job
	if err := json.Unmarshal([]byte(os.Getenv(envChildJob)), &j); err != nil {
		return nil, err
	}
	st, err := newStore()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	defer cancel()
	return runJob(ctx, st, j)
}

// runJob runs j against store and returns what each caller was admitted.
func runJob(ctx context.Context, st store.Counters, j job) ([]int64, error) {
	callers, err := parseCallers(j.Callers)
	if err != nil {
		return nil, err
	}
	admitted := make([]atomic.Int64, len(callers))
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	for g := range j.Goroutines {
		cs := callers[g%len(callers)]
		wg.Go(func() {
			outs := make([]limiter.Decision, len(cs))
			for range j.Each {
				if err := st.Decide(ctx, cs, j.At, 1, outs); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				if d, _ := limiter.Join(outs); d.Allowed {
					admitted[g%len(callers)].Add(1)
				}
			}
		})
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return nil, *p
	}
	out := make([]int64, len(callers))
	for i := range admitted {
		out[i] = admitted[i].Load()
	}
	return out, nil
}

// parseCallers compiles each caller's counters.
func parseCallers(in [][]jobCounter) ([][]store.Counter, error) {
	callers := make([][]store.Counter, len(in))
	for i, cs := range in {
		for _, c := range cs {
			set, err := parseSet(c.Rules)
			if err != nil {
				return nil, err
			}
			callers[i] = append(callers[i], store.Counter{Key: c.Key, Set: set})
		}
	}
	return callers, nil
}

func parseSet(rules []string) (*limiter.Set, error) {
	parsed := make([]limiter.Rule, len(rules))
	for i, js := range rules {
		r, err := limiter.ParseRule([]byte(js))
		if err != nil {
			return nil, err
		}
		parsed[i] = r
	}
	return limiter.NewSet(parsed, nil)
}

// Processes re-executes this test binary procs times (its TestMain must call
// MaybeChild); each child runs j's goroutines at j's frozen instant. It returns what
// each caller was admitted, summed over the children. The children get this process's
// environment, so they reach the same services.
func Processes(t *testing.T, procs int, j job) []int64 {
	t.Helper()
	spec, _ := json.Marshal(j)
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	defer cancel()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]strings.Builder, procs)
	for i := range cmds {
		cmds[i] = exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), envChild+"=1", envChildJob+"="+string(spec))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	total := make([]int64, len(j.Callers))
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, outs[i].String())
		}
		line := strings.TrimSpace(outs[i].String())
		fields := strings.Fields(strings.TrimPrefix(line[strings.LastIndex(line, "\n")+1:], "admitted "))
		if len(fields) != len(total) {
			t.Fatalf("child %d printed %q", i, line)
		}
		for k, f := range fields {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("child %d printed %q", i, line)
			}
			total[k] += n
		}
	}
	return total
}
