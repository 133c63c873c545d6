package storetest

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// envChildJob passes a job, as JSON, to the children of Processes.
const envChildJob = "EDGELIMIT_STORETEST_JOB"

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
// it runs the job against the Store newStore returns, prints "admitted [N, ...]" (per
// caller), and exits. A backend's TestMain calls it before m.Run.
func MaybeChild(newStore func() (store.Counters, error)) {
	if spec := os.Getenv(envChildJob); spec != "" {
		n, err := runChild(spec, newStore)
		exitChild("admitted ", n, err)
	}
}

func runChild(spec string, newStore func() (store.Counters, error)) ([]int64, error) {
	j, st, err := readJob[job](spec, newStore)
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
			set, err := parseSet(nil, c.Rules)
			if err != nil {
				return nil, err
			}
			callers[i] = append(callers[i], store.Counter{Key: c.Key, Set: set})
		}
	}
	return callers, nil
}

// Processes re-executes this test binary procs times (its TestMain must call
// MaybeChild); each child runs j's goroutines at j's frozen instant. It returns what
// each caller was admitted, summed over the children. The children get this process's
// environment, so they reach the same services.
func Processes(t *testing.T, procs int, j job) []int64 {
	t.Helper()
	spec, _ := json.Marshal(j)
	total := make([]int64, len(j.Callers))
	for i, n := range runChildren[[]int64](t, procs, envChildJob+"="+string(spec), "admitted ", childDeadline) {
		if len(n) != len(total) {
			t.Fatalf("child %d admitted %v, for %d callers", i, n, len(total))
		}
		for k := range n {
			total[k] += n[k]
		}
	}
	return total
}
