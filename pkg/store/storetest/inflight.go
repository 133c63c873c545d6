package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// envInFlightJob passes an InFlightJob, as JSON, to the children of InFlight.
const envInFlightJob = "EDGELIMIT_STORETEST_INFLIGHT_JOB"

// InFlightJob is what each child process of InFlight does, on the real clock:
// Goroutines goroutines, goroutine g deciding the counters of Callers[g mod
// len(Callers)] (cost 1), each for at most For and at most Each requests. Every call
// (a Decide, a Settle) has its own deadline, Budget. An allowed request holds its
// reservation for up to Hold (its work), then settles it (Delta 0, a fresh ID, expiring
// Lease after it was reserved); a goroutine idles up to Gap between requests.
type InFlightJob struct {
	Callers    [][]InFlightCounter `json:"callers"`
	Goroutines int                 `json:"goroutines"`
	Each       int                 `json:"each"`
	For        time.Duration       `json:"for"`
	Budget     time.Duration       `json:"budget"`
	Hold       time.Duration       `json:"hold"`
	Gap        time.Duration       `json:"gap"`
	Lease      time.Duration       `json:"lease"`
}

// InFlightCounter is one counter of a caller's requests: a key and its rules (JSON).
type InFlightCounter = jobCounter

// InFlightReport is what the children of InFlight did, summed.
type InFlightReport struct {
	Decisions, Admitted, Settled int64
	// Errors counts the failed calls by the class the backend's classify gave them.
	Errors map[string]int64
	// MaxInFlight is the most reservations held at one instant, each held from when
	// its Decide returned to when its Settle was sent (whatever the settle answered: a
	// settle that timed out may have released the slot at once): a lower bound of
	// what the store held, so never above a concurrency limit that the store keeps.
	MaxInFlight int
}

// childReport is one child's InFlightReport (without MaxInFlight) and its holding
// intervals (Unix nanoseconds).
type childReport struct {
	InFlightReport
	Held [][2]int64
}

// MaybeInFlightChild turns this process into a child of InFlight when it was started
// as one: it runs the job against the Counters newStore returns (a store.Settler),
// naming each error by classify, prints its report and exits; or into the child of
// KilledHolder. A backend's TestMain calls it before m.Run.
func MaybeInFlightChild(newStore func() (store.Counters, error), classify func(error) string) {
	if spec := os.Getenv(envHoldJob); spec != "" { // KilledHolder's child
		fmt.Fprintln(os.Stderr, "child:", runHoldChild(spec, newStore))
		os.Exit(1)
	}
	if spec := os.Getenv(envInFlightJob); spec != "" {
		rep, err := runInFlightChild(spec, newStore, classify)
		exitChild("inflight ", rep, err)
	}
}

func runInFlightChild(spec string, newStore func() (store.Counters, error), classify func(error) string) (*childReport, error) {
	j, st, err := readJob[InFlightJob](spec, newStore)
	if err != nil {
		return nil, err
	}
	s, ok := st.(store.Settler)
	if !ok {
		return nil, fmt.Errorf("%T does not implement store.Settler", st)
	}
	callers, err := parseCallers(j.Callers)
	if err != nil {
		return nil, err
	}
	r := inFlightRun{job: j, st: st, s: s, classify: classify, rep: childReport{InFlightReport: InFlightReport{Errors: map[string]int64{}}}}
	var wg sync.WaitGroup
	end := time.Now().Add(j.For)
	for g := range j.Goroutines {
		wg.Go(func() { r.goroutine(callers[g%len(callers)], end, uint64(g)) })
	}
	wg.Wait()
	return &r.rep, nil
}

// inFlightRun is one child's run: its job, its store, and the report it adds to.
type inFlightRun struct {
	job      InFlightJob
	st       store.Counters
	s        store.Settler
	classify func(error) string
	mu       sync.Mutex
	rep      childReport
}

func (r *inFlightRun) goroutine(cs []store.Counter, end time.Time, seed uint64) {
	rng := mrand.New(mrand.NewPCG(seed, uint64(os.Getpid())))
	outs := make([]limiter.Decision, len(cs))
	for n := 0; n < r.job.Each && time.Now().Before(end); n++ {
		time.Sleep(time.Duration(rng.Int64N(int64(r.job.Gap) + 1))) // idle between requests
		at := time.Now().UnixMicro()
		ctx, cancel := context.WithTimeout(context.Background(), r.job.Budget)
		err := r.st.Decide(ctx, cs, at, 1, outs)
		cancel()
		d, _ := limiter.Join(outs)
		if !r.record(err, err == nil && d.Allowed) {
			continue
		}
		from := time.Now().UnixNano()
		time.Sleep(time.Duration(rng.Int64N(int64(r.job.Hold) + 1))) // the request's work
		to := time.Now().UnixNano()
		ctx, cancel = context.WithTimeout(context.Background(), r.job.Budget)
		id := fmt.Sprintf("%d-%d-%d", os.Getpid(), seed, n)
		applied, err := r.s.Settle(ctx, cs, store.Settlement{ID: id, At: at, Now: time.Now().UnixMicro(), Expires: at + r.job.Lease.Microseconds()})
		cancel()
		r.settled(from, to, applied, err)
	}
}

// record counts a decision and reports whether it was allowed.
func (r *inFlightRun) record(err error, allowed bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.rep.Errors["decide: "+r.classify(err)]++
		return false
	}
	r.rep.Decisions++
	if allowed {
		r.rep.Admitted++
	}
	return allowed
}

func (r *inFlightRun) settled(from, to int64, applied bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil:
		r.rep.Errors["settle: "+r.classify(err)]++
	case !applied:
		r.rep.Errors["settle: not applied"]++
	default:
		r.rep.Settled++
	}
	r.rep.Held = append(r.rep.Held, [2]int64{from, to})
}

// InFlight re-executes this test binary procs times (its TestMain must call
// MaybeInFlightChild); each child runs j. It returns their reports summed, and the
// most reservations held at one instant across all of them.
func InFlight(t *testing.T, procs int, j InFlightJob) InFlightReport {
	t.Helper()
	spec, _ := json.Marshal(j)
	rep := InFlightReport{Errors: map[string]int64{}}
	var held [][2]int64
	for _, c := range runChildren[childReport](t, procs, envInFlightJob+"="+string(spec), "inflight ", j.For+childDeadline) {
		rep.Decisions, rep.Admitted, rep.Settled = rep.Decisions+c.Decisions, rep.Admitted+c.Admitted, rep.Settled+c.Settled
		for k, n := range c.Errors {
			rep.Errors[k] += n
		}
		held = append(held, c.Held...)
	}
	rep.MaxInFlight = maxOverlap(held)
	return rep
}

// maxOverlap returns the most intervals [from, to] that hold one instant. At one
// instant the ends count first: [a, b] and [b, c] overlap only if b is held by both,
// which two reservations of one slot cannot be.
func maxOverlap(held [][2]int64) int {
	starts, ends := make([]int64, len(held)), make([]int64, len(held))
	for i, h := range held {
		starts[i], ends[i] = h[0], h[1]
	}
	slices.Sort(starts)
	slices.Sort(ends)
	most, ended := 0, 0
	for i, at := range starts {
		for ended < len(ends) && ends[ended] <= at {
			ended++
		}
		most = max(most, i+1-ended)
	}
	return most
}

// ErrorClass names an error for InFlight's report: "deadline" for a call past its
// budget, else the error.
func ErrorClass(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "deadline"
	}
	return "other: " + err.Error()
}

// InFlightTenTimesThree runs the concurrency Show on the backend of this test binary
// (its TestMain calls MaybeInFlightChild): 3 OS processes x 32 goroutines on the real
// clock, with production's 100 ms budget, holding each reservation up to 300 ms and
// idling up to 20 ms between requests, against 10 in flight (60 s lease) within a
// token bucket that rarely denies; never more than 10 held at once, and no call failed
// but by its deadline.
func InFlightTenTimesThree(t *testing.T) {
	rules := []string{`{"name": "inflight", "algorithm": "concurrency", "limit": 10, "lease": "60s"}`,
		`{"name": "rate", "algorithm": "token_bucket", "limit": 2000, "period": "1s"}`}
	callers := [][]InFlightCounter{{{Key: Key(t, "tenant"), Rules: rules}}}
	rep := InFlight(t, 3, InFlightJob{Callers: callers, Goroutines: 32, Each: 150, For: 4 * time.Second,
		Budget: 100 * time.Millisecond, Hold: 300 * time.Millisecond, Gap: 20 * time.Millisecond, Lease: time.Minute})
	CheckInFlight(t, rep, 10, true)
}

// CheckInFlight logs rep and fails t when more than limit reservations were held at
// once, when a call failed but by its deadline, ErrContention or ErrThrottled (an
// "other: " class of ErrorClass, or a settle of a fresh id not applied), or, with
// wantAdmitted, when nothing was admitted.
func CheckInFlight(t *testing.T, rep InFlightReport, limit int, wantAdmitted bool) {
	t.Helper()
	t.Logf("%d decisions, %d admitted, %d settled, at most %d in flight; failed calls: %v", rep.Decisions, rep.Admitted, rep.Settled, rep.MaxInFlight, rep.Errors)
	if rep.MaxInFlight > limit {
		t.Fatalf("%d reservations held at once, limit %d", rep.MaxInFlight, limit)
	}
	if wantAdmitted && rep.Admitted == 0 {
		t.Fatal("nothing admitted")
	}
	for class, n := range rep.Errors {
		if strings.Contains(class, "other: ") || strings.Contains(class, "not applied") {
			t.Errorf("failed calls: %s (%d)", class, n)
		}
	}
}
