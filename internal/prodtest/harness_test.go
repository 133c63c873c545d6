package prodtest

import (
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// The production-like run: 3 processes, each its clock skewed (at most 250 ms from the
// real one, 400 ms between two of them: within the 500 ms apart of the stores'
// TestClockSkew), the real tenant's traffic through its 3 keys with idle gaps, and
// beside it a flood of random well-formed keys.
var (
	harnessSkews = []time.Duration{0, 250 * time.Millisecond, -150 * time.Millisecond}
	// harnessGaps: no real traffic for 300 ms (longer than the budget), then for 3 s
	// (longer than harnessIdle, so that every store connection is closed and opened
	// again), then for 500 ms.
	harnessGaps = []gap{{5, 5.3}, {9, 12}, {17, 17.5}}
)

const (
	harnessSeconds = 24
	harnessIdle    = 2 * time.Second // the store connections' idle timeout in the children
	harnessFlood   = 20              // random keys a second, per process
	harnessMaxHeap = 64 << 20        // bytes, per process
)

// TestProductionLike runs the production-like harness: the hot case's tenant (a token
// bucket of 100 a second, burst 100, 3 keys, 300 requests a second in all, the key
// throttled at 30 write units a second) on 3 processes whose gate clocks are skewed
// by harnessSkews, with the idle gaps of harnessGaps and a flood of random keys. The
// tenant's admitted total must be within the model's bound of what one exact limiter
// admits on the merged trace: no more than it plus the skew's overshoot (400 ms x 100 a
// second) and the leases' (N x B: 3 instances, B at most a tenth of the burst), and no
// less than 95% of it. At most maxFailShare of the tenant's requests may get the fail
// mode (the goal is none: see maxFailShare), every flood
// request must be Unauthorized (or the fail mode: never allowed), and no process's
// heap may exceed 64 MB.
func TestProductionLike(t *testing.T) {
	testenv.DynamoDBURL(t) // skip (fail under CI) before anything else without the services
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: skipping the production-like run (scripts/test.sh runs it without -race)")
	}
	d := deploy(t, hotRules, 3, hotWriteUnits)
	jobs := d.jobs(len(harnessSkews), d.keys, hotRate, harnessSeconds, time.Now().Add(3*time.Second))
	for i := range jobs {
		jobs[i].Skew = harnessSkews[i].Microseconds()
		jobs[i].Gaps, jobs[i].Flood, jobs[i].IdleTimeout = harnessGaps, harnessFlood, harnessIdle
	}
	r := runChildren(t, jobs)
	tl := r.tally()
	exact := r.exact(t)
	writes := d.throttle.Stats(d.counters, d.tenantCounter)
	t.Logf("tenant: %d requests, admitted %d, one exact limiter %d, fail mode %d %v at %.2f s; %d writes (%.1f%%), %d throttled; p99 %v; heaps %v MB; hot counters %+v",
		tl.n, tl.admitted, exact, tl.failMode, tl.reasons, tl.failedAt, writes.Writes,
		100*float64(writes.Writes)/float64(tl.n), writes.ThrottledWrites, tl.p99, mb(r.heaps()), r.hotStats())
	skew := int64(400) * hotLimit / 1000
	leases := int64(len(jobs)) * hotBurst / 10
	if tl.admitted > exact+skew+leases || tl.admitted*100 < exact*95 {
		t.Errorf("admitted %d, one exact limiter %d: want at most %d more (skew %d, leases %d) and at least 95%%", tl.admitted, exact, skew+leases, skew, leases)
	}
	tl.checkFailMode(t, "the tenant")
	if n, allowed := r.flood(); n == 0 || allowed > 0 {
		t.Errorf("%d flood requests, %d of them allowed: want some, none allowed", n, allowed)
	}
	for i, h := range r.heaps() {
		if h > harnessMaxHeap {
			t.Errorf("process %d: a heap of %d MB, want at most %d", i, h>>20, harnessMaxHeap>>20)
		}
	}
}

// exact is what one exact limiter of the tenant's rules admits on the tenant's merged
// trace (real instants, in order).
func (r run) exact(t *testing.T) int64 {
	t.Helper()
	set := storetest.Set(t, nil, hotRule)
	states := set.NewStates()
	n := int64(0)
	for _, l := range r.lines {
		if !l.Real {
			continue
		}
		if d, err := set.Decide(states, l.At, 1); err != nil {
			t.Fatal(err)
		} else if d.Allowed {
			n++
		}
	}
	return n
}

// flood counts the flood's requests and those of them allowed.
func (r run) flood() (n, allowed int64) {
	for _, l := range r.lines {
		if !l.Real {
			n++
			if l.Answer == answerAllowed {
				allowed++
			}
		}
	}
	return n, allowed
}

// heaps returns each process's largest heap in use, in bytes.
func (r run) heaps() []uint64 {
	hs := make([]uint64, len(r.sums))
	for i, s := range r.sums {
		hs[i] = s.MaxHeap
	}
	return hs
}

func mb(bytes []uint64) []uint64 {
	out := make([]uint64, len(bytes))
	for i, b := range bytes {
		out[i] = b >> 20
	}
	return out
}
