package storetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// envHoldJob passes a holdJob, as JSON, to the child of KilledHolder.
const envHoldJob = "EDGELIMIT_STORETEST_HOLD_JOB"

// holdJob is what KilledHolder's child does: take n slots of its counters on the real
// clock, print their instants, and wait to be killed.
type holdJob struct {
	Counters []jobCounter `json:"counters"`
	N        int          `json:"n"`
}

// runHoldChild takes the job's slots and prints "held [instants]"; it then blocks, as
// a process that dies mid-request never settles.
func runHoldChild(spec string, newStore func() (store.Counters, error)) error {
	j, st, err := readJob[holdJob](spec, newStore)
	if err != nil {
		return err
	}
	callers, err := parseCallers([][]jobCounter{j.Counters})
	if err != nil {
		return err
	}
	cs, outs := callers[0], make([]limiter.Decision, len(callers[0]))
	ats := make([]int64, 0, j.N)
	for range j.N {
		at := time.Now().UnixMicro()
		if err := st.Decide(context.Background(), cs, at, 1, outs); err != nil {
			return err
		}
		if d, _ := limiter.Join(outs); !d.Allowed {
			return fmt.Errorf("slot %d of %d denied: %+v", len(ats)+1, j.N, d)
		}
		ats = append(ats, at)
	}
	out, _ := json.Marshal(ats)
	fmt.Printf("held %s\n", out)
	select {}
}

// KilledHolder checks that a process killed while it holds every slot of a
// concurrency rule frees them at their lease's end: a child process (this test binary
// again, whose TestMain calls MaybeInFlightChild) takes all limit slots of the rule
// {"algorithm": "concurrency", "limit": limit, "lease": lease} on a fresh key and is
// killed with SIGKILL once it says so. Right after, st admits no request on the key;
// once the real clock reaches the last slot's expiry (limiter.Set.SlotExpiry: within
// the lease and its quantum), st admits limit requests again.
func KilledHolder(t *testing.T, st store.Counters, limit int, lease time.Duration) {
	t.Helper()
	rules := []string{fmt.Sprintf(`{"name": "inflight", "algorithm": "concurrency", "limit": %d, "lease": %q}`, limit, lease)}
	c := jobCounter{Key: Key(t, "held"), Rules: rules}
	spec, _ := json.Marshal(holdJob{Counters: []jobCounter{c}, N: limit})
	ctx, cancel := context.WithTimeout(context.Background(), childDeadline)
	defer cancel()
	cmd := childCmd(ctx, envHoldJob+"="+string(spec))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "held ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not take its slots: %q %v: %s", line, err, stderr.String())
	}
	var ats []int64
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "held ")), &ats); err != nil || len(ats) != limit {
		t.Fatalf("the child printed %q: %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if n := admitted(t, st, c, 1); n != 0 {
		t.Fatalf("right after the holder was killed: %d admitted, want 0 (its %d slots held)", n, limit)
	}
	free := Set(t, nil, rules...).SlotExpiry(0, ats[len(ats)-1])
	if free-ats[0] > (lease + lease/limiter.LeaseQuanta + time.Second).Microseconds() {
		t.Fatalf("the last slot frees %v after the first was taken, beyond the lease %v and its quantum", time.Duration(free-ats[0])*time.Microsecond, lease)
	}
	time.Sleep(time.Until(time.UnixMicro(free))) // the lease's end on the real clock, the subject under test
	if n := admitted(t, st, c, limit+1); n != int64(limit) {
		t.Fatalf("after the killed holder's leases ended: %d of %d admitted, want %d", n, limit+1, limit)
	}
}

// admitted decides n requests of cost 1 on c, one after another at the real clock's
// instant, and returns how many were allowed.
func admitted(t *testing.T, st store.Counters, c jobCounter, n int) int64 {
	t.Helper()
	got, err := runJob(t.Context(), st, job{Callers: [][]jobCounter{{c}}, At: time.Now().UnixMicro(), Goroutines: 1, Each: n})
	if err != nil {
		t.Fatal(err)
	}
	return got[0]
}
