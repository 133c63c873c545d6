package upstash

import (
	"os"
	"time"

	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// newTestStore connects to the local Upstash-compatible server in front of a real
// redis-server that `make test` starts.
func newTestStore(t testing.TB, transport *testenv.CountingTransport) *Counters {
	t.Helper()
	url, token := testenv.UpstashURL(t)
	cfg := upstashrest.Config{URL: url, Token: token, KeyLocking: true} // as production sends
	if transport != nil {
		transport.Next = http.DefaultTransport
		cfg.HTTPClient = &http.Client{Transport: transport}
	}
	c, err := upstashrest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return NewCounters(c, CountersConfig{})
}

func TestStoreConformance(t *testing.T) {
	storetest.RunCounters(t, newTestStore(t, nil), storetest.CountersOptions{})
}

// TestConcurrencyConformance: concurrency rules alone and among the other algorithms,
// under allow-key-locking, where every sorted set must be declared in KEYS.
func TestConcurrencyConformance(t *testing.T) {
	storetest.RunConcurrency(t, newTestStore(t, nil))
}

func TestMain(m *testing.M) {
	childStore := func() (store.Counters, error) {
		c, err := upstashrest.NewClient(upstashrest.Config{URL: os.Getenv(testenv.EnvUpstashURL), Token: os.Getenv(testenv.EnvUpstashToken)})
		if err != nil {
			return nil, err
		}
		return NewCounters(c, CountersConfig{}), nil
	}
	storetest.MaybeChild(childStore)
	storetest.MaybeInFlightChild(childStore, storetest.ErrorClass)
	os.Exit(m.Run())
}

// TestInFlightAcrossProcesses: 3 OS processes x 32 goroutines against 10 in flight,
// on the real clock with production's 100 ms budget: never 11 held at once.
func TestInFlightAcrossProcesses(t *testing.T) {
	testenv.UpstashURL(t) // skip (fail under CI) without the service, before the children start
	storetest.InFlightTenTimesThree(t)
}

// TestKilledHolderFreesItsSlots: a process killed holding every slot frees them at
// their lease's end.
func TestKilledHolderFreesItsSlots(t *testing.T) {
	storetest.KilledHolder(t, newTestStore(t, nil), 10, time.Second)
}

func TestStoreExactAcrossProcesses(t *testing.T) {
	storetest.Exactness(t, newTestStore(t, nil))
}
