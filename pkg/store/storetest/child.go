package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// childDeadline bounds a child process's run, beyond its job's own duration.
const childDeadline = 2 * time.Minute

// childCmd is this test binary again, running no test, with env (NAME=value) added to
// this process's environment, so that it reaches the same services.
func childCmd(ctx context.Context, env string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	return cmd
}

// runChildren starts procs children with env (the backend's TestMain turns each into
// a child), waits for them for at most timeout, and returns what each printed as JSON
// after prefix on its last line.
func runChildren[R any](t *testing.T, procs int, env, prefix string, timeout time.Duration) []R {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]strings.Builder, procs)
	for i := range cmds {
		cmds[i] = childCmd(ctx, env)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	reps := make([]R, procs)
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, outs[i].String())
		}
		out := strings.TrimSpace(outs[i].String())
		last, ok := strings.CutPrefix(out[strings.LastIndex(out, "\n")+1:], prefix)
		if err := json.Unmarshal([]byte(last), &reps[i]); !ok || err != nil {
			t.Fatalf("child %d printed %q: %v", i, out, err)
		}
	}
	return reps
}

// readJob decodes a child's job from spec (JSON) and makes its store.
func readJob[J any](spec string, newStore func() (store.Counters, error)) (J, store.Counters, error) {
	var j J
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		return j, nil, err
	}
	st, err := newStore()
	return j, st, err
}

// exitChild ends a child process: it prints err and exits 1, or prints prefix and v
// as JSON and exits 0.
func exitChild(prefix string, v any, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	out, _ := json.Marshal(v)
	fmt.Printf("%s%s\n", prefix, out)
	os.Exit(0)
}
