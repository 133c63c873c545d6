package prodtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// envJob carries a child's job (JSON) from the test that starts it.
const envJob = "EDGELIMIT_TEST_PRODTEST_JOB"

func TestMain(m *testing.M) {
	if spec := os.Getenv(envJob); spec != "" {
		os.Exit(runChild(spec, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// job is what one child process does: it opens its stores and gate from Env, as a
// function does at a cold start, then checks Rate requests a second from Start (Unix
// microseconds, on the real clock) for Seconds, request i sent with Keys[i mod
// len(Keys)], none during Gaps; beside them, Flood requests a second with random
// well-formed keys. Its gate's clock is the real one plus Skew microseconds.
type job struct {
	Env            map[string]string
	Keys           []string
	Rate, Flood    int64
	Start, Seconds int64
	Phase          int64 // microseconds: this process's first request is at Start + Phase
	Ramp           int64 // seconds over which the rates grow from 0 (traffic arriving)
	Skew           int64
	Gaps           []gap
	Workers        int
	// IdleTimeout closes the store connections idle for longer; 0 means the SDK's.
	IdleTimeout time.Duration
}

// gap is a span of seconds after Start, [From, To), in which no request is sent.
type gap struct{ From, To float64 }

func (j job) idle(at int64) bool {
	s := float64(at-j.Start) / 1e6
	for _, g := range j.Gaps {
		if s >= g.From && s < g.To {
			return true
		}
	}
	return false
}

// The answers a child records, one letter per request.
const (
	answerAllowed      = "a"
	answerDenied       = "d"
	answerFailMode     = "f" // the store failed: the tenant's fail mode answered
	answerUnauthorized = "u"
)

// line is one request a child checked: the real instant it was sent, its answer, how
// long Check took, and whether it carried a real key (not the flood's).
type line struct {
	At      int64  `json:"t"`
	Answer  string `json:"a"`
	Latency int64  `json:"l"` // microseconds
	Real    bool   `json:"r"`
}

// summary is a child's last line: the fail mode's reasons with their counts, the hot
// counters' work, and the largest heap seen.
type summary struct {
	Reasons map[string]int
	Hot     hotcounter.Stats
	MaxHeap uint64
}

// runChild runs the job spec and writes one JSON line per request, then the summary.
func runChild(spec string, stdout, stderr io.Writer) int {
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		fmt.Fprintln(stderr, "child:", err)
		return 1
	}
	if err := j.run(stdout); err != nil {
		fmt.Fprintln(stderr, "child:", err)
		return 1
	}
	return 0
}

// open builds the stores and the gate from j.Env through internal/config.
func (j job) open(ctx context.Context) (*gate.Gate, store.Counters, error) {
	getenv := func(k string) string { return j.Env[k] }
	opts := config.Options{AWSConfig: func(context.Context) (aws.Config, error) { return config.LambdaAWSConfig(getenv) }}
	if j.IdleTimeout > 0 {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.IdleConnTimeout = j.IdleTimeout
		opts.HTTPClient = &http.Client{Transport: tr}
	}
	cfg, st, err := config.Open(ctx, getenv, opts)
	if err != nil {
		return nil, nil, err
	}
	gc := cfg.GateConfig(st)
	gc.Now = func() int64 { return limiter.Micros(time.Now()) + j.Skew }
	g, err := gate.New(gc)
	return g, st.Counters, err
}

// requestID matches the request id in an SDK error, which the summary leaves out so
// that one reason counts once.
var requestID = regexp.MustCompile(`RequestID: [0-9A-Za-z-]*`)

// request is one request to send: its instant and key.
type request struct {
	at   int64
	key  string
	real bool
}

func (j job) run(stdout io.Writer) error {
	ctx := context.Background()
	g, counters, err := j.open(ctx)
	if err != nil {
		return err
	}
	if err := j.warmUp(ctx, g, counters); err != nil {
		return err
	}
	hot, _ := counters.(*hotcounter.Store)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var mu sync.Mutex
	sum := summary{Reasons: map[string]int{}}
	enc := json.NewEncoder(out)
	reqs := make(chan request)
	var wg sync.WaitGroup
	for range j.Workers {
		wg.Go(func() {
			for r := range reqs {
				l, reason := check(g, r)
				mu.Lock()
				enc.Encode(l)
				if l.Answer == answerFailMode && l.Real {
					sum.Reasons[requestID.ReplaceAllString(reason, "RequestID: *")]++
				}
				mu.Unlock()
			}
		})
	}
	stop := watchHeap(&sum.MaxHeap)
	j.send(reqs)
	close(reqs)
	wg.Wait()
	stop()
	if hot != nil {
		sum.Hot = hot.Stats()
	}
	return enc.Encode(sum)
}

// check sends r through the gate and returns its line, and the fail mode's reason.
func check(g *gate.Gate, r request) (line, string) {
	start := time.Now()
	res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/hello", APIKey: r.key, SourceIP: "192.0.2.1"})
	l := line{At: r.at, Latency: time.Since(start).Microseconds(), Real: r.real}
	switch {
	case err != nil:
		return line{At: r.at, Answer: answerFailMode, Real: r.real}, err.Error()
	case res.FailOpen || res.FailedClosed:
		l.Answer = answerFailMode
	case res.Status == gate.Allowed:
		l.Answer = answerAllowed
	case res.Status == gate.Denied:
		l.Answer = answerDenied
	default:
		l.Answer = answerUnauthorized
	}
	return l, res.Reason
}

// send hands every request of the job to the workers at its instant: the real keys'
// at Rate a second, the flood's at Flood a second between them.
func (j job) send(reqs chan<- request) {
	end := j.Start + j.Seconds*1_000_000
	next := func(rate, i int64) int64 { return j.Start + j.Phase + j.offset(rate, i) }
	var i, f int64
	for {
		at, real := int64(0), true
		switch {
		case j.Flood > 0 && (j.Rate == 0 || next(j.Flood, f) < next(j.Rate, i)):
			at, real = next(j.Flood, f), false
			f++
		default:
			at = next(j.Rate, i)
			i++
		}
		if at >= end {
			return
		}
		if j.idle(at) {
			continue
		}
		time.Sleep(time.Until(time.UnixMicro(at))) // the load's own schedule, not a synchronisation
		r := request{at: at, real: real, key: apikey.New().Reveal()}
		if real {
			r.key = j.Keys[int(i-1)%len(j.Keys)]
		}
		reqs <- r
	}
}

// offset is when the i-th of rate requests a second is sent, in microseconds after the
// start: N(t) = rate t^2 / 2 Ramp during the ramp (the rate grows linearly from 0),
// then rate more a second.
func (j job) offset(rate, i int64) int64 {
	ramped := rate * j.Ramp / 2 // requests during the ramp
	if i < ramped {
		return int64(math.Sqrt(float64(2*j.Ramp*i)/float64(rate)) * 1e6)
	}
	return j.Ramp*1_000_000 + (i-ramped)*1_000_000/rate
}

// warmUp opens the connections a warm instance holds before the load starts, all at
// once: per worker, one lookup of a random key (which consumes no counter) and one
// decision on a counter of its own.
func (j job) warmUp(ctx context.Context, g *gate.Gate, counters store.Counters) error {
	rule, err := limiter.ParseRule([]byte(`{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`))
	if err != nil {
		return err
	}
	scratch, err := limiter.NewSet([]limiter.Rule{rule}, nil)
	if err != nil {
		return err
	}
	errs := make(chan error, j.Workers)
	for i := range j.Workers {
		go func() {
			g.Check(ctx, gate.Request{Method: "GET", Resource: "/hello", APIKey: apikey.New().Reveal()})
			_, err := store.DecideOne(ctx, counters, fmt.Sprint("warm:", os.Getpid(), ":", i), scratch, limiter.Micros(time.Now()), 1)
			errs <- err
		}()
	}
	for range j.Workers {
		if err := <-errs; err != nil {
			return err
		}
	}
	if time.Now().After(time.UnixMicro(j.Start)) {
		return errors.New("the warm-up ran past the load's start")
	}
	return nil
}

// watchHeap records the largest heap in use, sampled every 100 ms, until stop is
// called.
func watchHeap(most *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			*most = max(*most, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
