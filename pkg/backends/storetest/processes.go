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

	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// The environment of a child process started by Processes.
const (
	envChild      = "EDGELIMIT_STORETEST_CHILD" // set in children: "1"
	envChildJob   = "EDGELIMIT_STORETEST_JOB"   // the job, as JSON
	childDeadline = 2 * time.Minute
)

// job is what every child process does: goroutines x each decisions for key at At.
type job struct {
	Key        string   `json:"key"`
	Rules      []string `json:"rules"`
	At         int64    `json:"at"`
	Goroutines int      `json:"goroutines"`
	Each       int      `json:"each"`
}

// MaybeChild turns this process into a child of Processes when it was started as one:
// it runs the job against the Store newStore returns, prints "admitted N", and exits.
// A backend's TestMain calls it before m.Run.
func MaybeChild(newStore func() (backends.Store, error)) {
	if os.Getenv(envChild) != "1" {
		return
	}
	n, err := runChild(newStore)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Printf("admitted %d\n", n)
	os.Exit(0)
}

func runChild(newStore func() (backends.Store, error)) (int64, error) {
	var j job
	if err := json.Unmarshal([]byte(os.Getenv(envChildJob)), &j); err != nil {
		return 0, err
	}
	rules := make([]limiter.Rule, len(j.Rules))
	for i, js := range j.Rules {
		r, err := limiter.ParseRule([]byte(js))
		if err != nil {
			return 0, err
		}
		rules[i] = r
	}
	set, err := limiter.NewSet(rules, nil)
	if err != nil {
		return 0, err
	}
	store, err := newStore()
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	defer cancel()
	var admitted atomic.Int64
	var firstErr atomic.Pointer[error]
	var wg sync.WaitGroup
	for range j.Goroutines {
		wg.Go(func() {
			for range j.Each {
				d, err := backends.DecideOne(ctx, store, j.Key, set, j.At, 1)
				if err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				if d.Allowed {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil {
		return 0, *p
	}
	return admitted.Load(), nil
}

// Processes re-executes this test binary procs times (its TestMain must call
// MaybeChild); each child runs goroutines goroutines deciding each requests of cost 1
// for key, against rules, at the one frozen instant at. It returns the total admitted.
// The children get this process's environment, so they reach the same services.
func Processes(t *testing.T, procs, goroutines, each int, key string, at int64, rules ...string) int64 {
	t.Helper()
	spec, _ := json.Marshal(job{Key: key, Rules: rules, At: at, Goroutines: goroutines, Each: each})
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
	var total int64
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, outs[i].String())
		}
		line := strings.TrimSpace(outs[i].String())
		n, err := strconv.ParseInt(strings.TrimPrefix(line[strings.LastIndex(line, "\n")+1:], "admitted "), 10, 64)
		if err != nil {
			t.Fatalf("child %d printed %q", i, line)
		}
		total += n
	}
	return total
}

// Exactness is the cross-process exactness check every shared backend runs: 3 OS
// processes x 16 goroutines at one frozen instant on one key admit exactly what one
// serial limiter would, and a denial consumes nothing from a rule set.
func Exactness(t *testing.T, store backends.Store) {
	at := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	const fixed = `{"name": "window", "algorithm": "fixed_window", "limit": 100, "period": "1m"}`
	const bucket = `{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1m", "burst": 60}`
	for _, tc := range []struct {
		name  string
		rules []string
		want  int64
	}{
		{"fixed window 100", []string{fixed}, 100},
		{"token bucket 100", []string{`{"algorithm": "token_bucket", "limit": 100, "period": "1m"}`}, 100},
		{"fixed window 100 + token bucket burst 60", []string{fixed, bucket}, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := Key(t, "k")
			if got := Processes(t, 3, 16, 4, key, at, tc.rules...); got != tc.want {
				t.Fatalf("3 processes x 16 goroutines x 4 requests admitted %d, want exactly %d", got, tc.want)
			}
			if len(tc.rules) < 2 {
				return
			}
			outs := make([]limiter.Outcome, 2)
			if _, err := store.Peek(context.Background(), key, Set(t, nil, tc.rules...), at, outs); err != nil {
				t.Fatal(err)
			}
			if used := 100 - outs[0].Remaining; used != tc.want {
				t.Fatalf("the window shows %d used, want %d: denials consumed", used, tc.want)
			}
		})
	}
}
