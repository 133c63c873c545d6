package hotcounter_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/testenv/ddbthrottle"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// envTable passes the test table's name to child processes.
const envTable = "EDGELIMIT_TEST_COUNTERS_TABLE"

func TestMain(m *testing.M) {
	maybeLoadChild()
	storetest.MaybeChild(func() (store.Counters, error) {
		return cold(dynamodb.NewCounters(ddbClient(os.Getenv(testenv.EnvDynamoDBURL), nil), os.Getenv(envTable), dynamodb.CountersConfig{})), nil
	})
	os.Exit(m.Run())
}

// cold is the decorator with the hot mode out of reach.
func cold(next store.Counters) *hotcounter.Store {
	return hotcounter.New(next, hotcounter.Config{Threshold: math.MaxInt64})
}

// newTable creates a fresh counters table in DynamoDB Local and returns its name.
func newTable(t testing.TB, endpoint string) string {
	t.Helper()
	var b [4]byte
	rand.Read(b[:])
	table := "hot-" + hex.EncodeToString(b[:])
	if err := dynamodb.CreateTable(context.Background(), ddbClient(endpoint, nil), table, dynamodb.CountersTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	return table
}

// TestDynamoDBConformanceCold: the decorator, hot mode out of reach, passes the
// conformance suite and the 3-process exactness checks on DynamoDB Local as the bare
// store does.
func TestDynamoDBConformanceCold(t *testing.T) {
	endpoint := testenv.DynamoDBURL(t)
	table := newTable(t, endpoint)
	bare := dynamodb.NewCounters(ddbClient(endpoint, nil), table, dynamodb.CountersConfig{})
	storetest.RunCounters(t, cold(bare), storetest.CountersOptions{MaxLogLimit: dynamodb.MaxLogLimit})
	t.Setenv(envTable, table)
	storetest.Exactness(t, cold(bare))
}

// TestDynamoDBColdUnchanged: with the defaults, a counter below the threshold (a
// three-rule set at 10 decisions a second) decides on DynamoDB Local exactly as the
// limiter does, in one request per decision in the steady state (a mean of at most
// 1.1, as the bare store), and never reserves.
func TestDynamoDBColdUnchanged(t *testing.T) {
	endpoint := testenv.DynamoDBURL(t)
	ct := &testenv.CountingTransport{}
	s := newHot(dynamodb.NewCounters(ddbClient(endpoint, ct), newTable(t, endpoint), dynamodb.CountersConfig{}))
	c := counter(t, "k", `{"name": "w", "algorithm": "fixed_window", "limit": 20, "period": "1s"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 8, "period": "1s", "burst": 15}`,
		`{"name": "s", "algorithm": "sliding_window", "limit": 25, "period": "2s"}`)
	ref := c.Set.NewStates()
	const n = 300
	denied := 0
	for i := range n {
		at := t0 + int64(i)*100_000
		want, _ := c.Set.Decide(ref, at, 1)
		if got := decide(t, s, []store.Counter{c}, at, 1); got != want {
			t.Fatalf("request %d: %+v, the limiter %+v", i, got, want)
		}
		if !want.Allowed {
			denied++
		}
	}
	if mean := float64(ct.Count()) / n; mean > 1.1 || s.Stats().Reservations != 0 || denied == 0 {
		t.Fatalf("%d requests for %d decisions (%d denied), %+v", ct.Count(), n, denied, s.Stats())
	}
}

// TestThrottlingOnEveryCall: DynamoDB's throttling answers to each call of the
// decision path (UpdateItem for Decide, GetItem for Peek, DeleteItem for Reset), as
// the throttling harness sends them, are errors wrapping store.ErrThrottled; a
// throttled cold decision turns the counter hot, its throttled reservation is a local
// denial, and it is decided through a reservation once the key has capacity again. No DynamoDB is needed: the harness answers.
func TestThrottlingOnEveryCall(t *testing.T) {
	clk := &fakeClock{}
	th := ddbthrottle.New(ddbthrottle.Config{WriteUnits: 1, ReadUnits: 1, Burst: 2 * time.Second, Now: clk.Now})
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte("{}")) // every item is new: every decision is allowed
	}))
	defer stub.Close()
	s := newHot(dynamodb.NewCounters(ddbClient(stub.URL, th.Transport(nil), noRetries), "counters", dynamodb.CountersConfig{}))
	c := counter(t, "tenant", `{"algorithm": "token_bucket", "limit": 1000, "period": "1s"}`)
	ctx := context.Background()
	out := make([]limiter.Decision, 1)
	for i := range 2 { // the burst: two writes
		if err := s.Decide(ctx, []store.Counter{c}, t0, 1, out); err != nil {
			t.Fatalf("decision %d: %v", i, err)
		}
	}
	if err := s.Decide(ctx, []store.Counter{c}, t0, 1, out); err != nil || out[0].Allowed || out[0].RetryAfter <= 0 {
		t.Fatalf("UpdateItem over capacity: %+v, %v; want a local denial with RetryAfter", out[0], err)
	}
	if st := s.Stats(); st.Throttled != 2 || st.LocalDenials != 1 {
		t.Fatalf("%+v: want the cold decision and the reservation throttled (ErrThrottled), then a local denial", st)
	}
	if _, err := s.Peek(ctx, c.Key, c.Set, t0, nil); err != nil {
		t.Fatalf("first read: %v", err)
	}
	s.Peek(ctx, c.Key, c.Set, t0, nil)
	if _, err := s.Peek(ctx, c.Key, c.Set, t0, nil); !errors.Is(err, store.ErrThrottled) {
		t.Fatalf("GetItem over capacity: %v, want ErrThrottled", err)
	}
	if err := s.Reset(ctx, c.Key); !errors.Is(err, store.ErrThrottled) {
		t.Fatalf("DeleteItem over capacity: %v, want ErrThrottled", err)
	}
	clk.add(5) // capacity back
	before := s.Stats()
	if err := s.Decide(ctx, []store.Counter{c}, t0+5_000_000, 1, out); err != nil || !out[0].Allowed {
		t.Fatalf("with capacity back: %+v, %v", out[0], err)
	}
	if st := s.Stats(); st.Reservations != before.Reservations+1 {
		t.Fatalf("the throttled counter did not turn hot: %+v", st)
	}
}

// fakeClock is a settable clock for the throttling harness.
type fakeClock struct {
	mu      sync.Mutex
	seconds int
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(1_800_000_000+int64(c.seconds), 0)
}

func (c *fakeClock) add(seconds int) {
	c.mu.Lock()
	c.seconds += seconds
	c.mu.Unlock()
}
