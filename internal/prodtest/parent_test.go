package prodtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/testenv/ddbthrottle"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// budget is production's latency budget (EDGELIMIT_LATENCY_BUDGET's default), which
// every child keeps.
const budget = "100ms"

// deployment is one tenant with keys on fresh DynamoDB Local tables, reached through a
// throttling proxy as the children reach it.
type deployment struct {
	throttle      *ddbthrottle.Throttle
	proxy         string // the proxy's URL
	tenants       string // the tables' names
	counters      string
	keys          []string // raw API keys of the tenant
	tenantCounter string   // the tenant-scope counter's key
}

// deploy creates the tables, one tenant of rules (JSON) failing closed and n keys of
// it, straight on DynamoDB Local, and a throttling proxy in front of it at writeUnits
// per partition key.
func deploy(t *testing.T, rules string, n int, writeUnits float64) *deployment {
	t.Helper()
	endpoint := testenv.DynamoDBURL(t)
	ctx := context.Background()
	db := testenv.DynamoDBLocal(endpoint, "prodtest")
	d := &deployment{tenants: tableName("tenants"), counters: tableName("counters")}
	for _, tb := range []struct {
		name string
		kind dynamodb.TableKind
	}{{d.tenants, dynamodb.TenantsTable}, {d.counters, dynamodb.CountersTable}} {
		if err := dynamodb.CreateTable(ctx, db, tb.name, tb.kind, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	ts := dynamodb.NewTenants(db, d.tenants)
	var rs []limiter.Rule
	if err := json.Unmarshal([]byte(rules), &rs); err != nil {
		t.Fatal(err)
	}
	tn, err := ts.Create(ctx, tenant.Tenant{ID: "hot", Rules: rs, FailMode: tenant.FailClosed})
	if err != nil {
		t.Fatal(err)
	}
	d.tenantCounter = tenant.CreatedCounterKey(tn.ID, tn.CreationID, tn.Generation, "", tenant.IdentityTenant)
	for range n {
		k := apikey.New()
		if err := ts.PutKey(ctx, apikey.NewRecord(k, tn.ID, limiter.Micros(time.Now()))); err != nil {
			t.Fatal(err)
		}
		d.keys = append(d.keys, k.Reveal())
	}
	d.throttle = ddbthrottle.New(ddbthrottle.Config{WriteUnits: writeUnits})
	proxy, err := d.throttle.Proxy(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	d.proxy = srv.URL
	return d
}

func tableName(kind string) string {
	var b [4]byte
	rand.Read(b[:])
	return "prod-" + kind + "-" + hex.EncodeToString(b[:])
}

// env is the functions' environment for d: the DynamoDB backend through the proxy,
// hot counters on (the default), production's budget and config TTL.
func (d *deployment) env() map[string]string {
	return map[string]string{
		config.EnvBackend:            config.BackendDynamoDB,
		config.EnvTenantsTable:       d.tenants,
		config.EnvCountersTable:      d.counters,
		config.EnvDynamoDBEndpoint:   d.proxy,
		config.EnvLatencyBudget:      budget,
		config.EnvAWSRegion:          "us-east-1",
		config.EnvAWSAccessKeyID:     "prodtest",
		config.EnvAWSSecretAccessKey: "prodtest",
	}
}

// run is what the children of one run answered, every line in order of instants.
type run struct {
	lines []line
	sums  []summary
}

// runChildren runs jobs, one re-execution of this test binary each, all at once, and
// returns their lines and summaries.
func runChildren(t *testing.T, jobs []job) run {
	t.Helper()
	longest := int64(0)
	for _, j := range jobs {
		longest = max(longest, j.Seconds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(longest+60)*time.Second)
	defer cancel()
	cmds := make([]*exec.Cmd, len(jobs))
	outs := make([]strings.Builder, len(jobs))
	errs := make([]strings.Builder, len(jobs))
	for i, j := range jobs {
		spec, _ := json.Marshal(j)
		cmds[i] = exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), envJob+"="+string(spec))
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &errs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	var r run
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v: %s", i, err, errs[i].String())
		}
		ls, sum, err := parseChild(outs[i].String())
		if err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
		r.lines = append(r.lines, ls...)
		r.sums = append(r.sums, sum)
	}
	slices.SortStableFunc(r.lines, func(a, b line) int { return int(a.At - b.At) })
	return r
}

func parseChild(out string) ([]line, summary, error) {
	var ls []line
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, summary{}, fmt.Errorf("line %q: %v", sc.Text(), err)
		}
		if l.Answer == "" { // the summary, last
			var s summary
			err := json.Unmarshal(sc.Bytes(), &s)
			return ls, s, err
		}
		ls = append(ls, l)
	}
	return nil, summary{}, fmt.Errorf("no summary line in %d lines", len(ls))
}

// tally is what the real keys' requests of a run add up to.
type tally struct {
	n, admitted, denied, failMode, unauthorized int64
	first, last                                 int64 // instants of the first and last
	p99                                         time.Duration
	reasons                                     map[string]int
	failedAt                                    []float64 // seconds after the first request
	// throttled counts the fail-mode answers to a throttle; the others are the store
	// answering after the budget.
	throttled int64
}

// maxFailShare bounds the share of a run's requests answered by the fail mode because
// the store answered after the budget. The goal is none, and a quiet machine gives
// none; at a load average of 15 to 20, DynamoDB Local stalls for a few hundred
// milliseconds at a time, and up to 4% of the requests wait for reservations answered
// after the 100 ms budget. A throttle is never an excuse: throttled reservations are
// denied locally until they have lasted 5 s in a row (docs/backends.md), which no run
// reaches, so a fail-mode answer to a throttle fails the run.
const maxFailShare = 0.05

// checkFailMode holds a run's fail-mode answers to maxFailShare, none of them to a
// throttle, and requires no request Unauthorized.
func (tl tally) checkFailMode(t *testing.T, name string) {
	t.Helper()
	if float64(tl.failMode) > maxFailShare*float64(tl.n) || tl.throttled > 0 || tl.unauthorized > 0 {
		t.Errorf("%s: %d fail-mode answers (%d to throttling) of %d requests: %v; %d unauthorized: want at most %.0f%%, none to throttling, none unauthorized",
			name, tl.failMode, tl.throttled, tl.n, tl.reasons, tl.unauthorized, 100*maxFailShare)
	}
}

func (r run) tally() tally {
	tl := tally{reasons: map[string]int{}}
	var lat []int64
	for _, l := range r.lines {
		if !l.Real {
			continue
		}
		if tl.n == 0 {
			tl.first = l.At
		}
		tl.n++
		tl.last = l.At
		lat = append(lat, l.Latency)
		switch l.Answer {
		case answerAllowed:
			tl.admitted++
		case answerDenied:
			tl.denied++
		case answerFailMode:
			tl.failMode++
			tl.failedAt = append(tl.failedAt, float64(l.At-tl.first)/1e6)
		default:
			tl.unauthorized++
		}
	}
	for _, s := range r.sums {
		for k, v := range s.Reasons {
			tl.reasons[k] += v
			if strings.Contains(k, "throttled") {
				tl.throttled += int64(v)
			}
		}
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		tl.p99 = time.Duration(lat[(len(lat)*99)/100]) * time.Microsecond
	}
	return tl
}

// allowance is what a token bucket of limit a second and burst allows from a full
// start over the run's span: burst + limit x span.
func (tl tally) allowance(limit, burst int64) int64 {
	return burst + limit*(tl.last-tl.first)/1_000_000
}

// jobs returns procs jobs of d's environment, each at rate a second from start for
// seconds, through keys, their first requests spread over the first request's gap.
func (d *deployment) jobs(procs int, keys []string, rate, seconds int64, start time.Time) []job {
	js := make([]job, procs)
	for i := range js {
		js[i] = job{Env: d.env(), Keys: keys, Rate: rate, Start: limiter.Micros(start), Seconds: seconds,
			Phase: int64(i) * 1_000_000 / rate / int64(procs), Ramp: 1, Workers: 8}
	}
	return js
}

// hotStats sums the children's hot counter Stats.
func (r run) hotStats() hotcounter.Stats {
	var s hotcounter.Stats
	for _, c := range r.sums {
		s = s.Plus(c.Hot)
	}
	return s
}
