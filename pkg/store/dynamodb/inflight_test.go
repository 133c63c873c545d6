package dynamodb

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// errorClass names an error of the Counters for storetest.InFlight's report.
func errorClass(err error) string {
	switch {
	case errors.Is(err, ErrContention):
		return "ErrContention"
	case errors.Is(err, ErrThrottled):
		return "ErrThrottled"
	}
	return storetest.ErrorClass(err)
}

// inflightRules: 10 requests in flight, within a token bucket that rarely denies.
var inflightRules = []string{
	`{"name": "inflight", "algorithm": "concurrency", "limit": 10, "lease": "60s"}`,
	`{"name": "rate", "algorithm": "token_bucket", "limit": 2000, "period": "1s"}`,
}

// TestInFlightAcrossProcesses: 3 OS processes x 32 goroutines reserve and settle on
// the real clock against 10 in flight (60 s lease) within a token bucket, holding each
// reservation up to 300 ms (its work) with idle gaps of up to 20 ms. No instant holds
// more than 10 reservations across the processes. With the production budget of 100 ms
// a call; with 2 s, so that every call answers and the ErrContention count is the
// store's alone (the figure the relative updates are measured by: 0 on one key). Then
// the concurrency rule on the tenant's counter beside each caller's own API-key
// counter (4 keys): a transaction per decision, which conflicts where ADDs do not.
// A call fails only by its deadline, ErrContention or ErrThrottled.
func TestInFlightAcrossProcesses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keys   int
		budget time.Duration
	}{{"one key, 100ms", 0, 100 * time.Millisecond}, {"one key, 2s", 0, 2 * time.Second}, {"tenant and 4 keys, 2s", 4, 2 * time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, table := newTestStore(t)
			t.Setenv(envTable, table)
			tenant := storetest.InFlightCounter{Key: storetest.Key(t, "tenant"), Rules: inflightRules}
			callers := [][]storetest.InFlightCounter{{tenant}}
			if tc.keys > 0 {
				callers = nil
				for k := range tc.keys {
					key := storetest.InFlightCounter{Key: storetest.Key(t, fmt.Sprint("key", k)), Rules: inflightRules[1:]}
					callers = append(callers, []storetest.InFlightCounter{tenant, key})
				}
			}
			rep := storetest.InFlight(t, 3, storetest.InFlightJob{Callers: callers, Goroutines: 32, Each: 150, For: 4 * time.Second,
				Budget: tc.budget, Hold: 300 * time.Millisecond, Gap: 20 * time.Millisecond, Lease: time.Minute})
			storetest.CheckInFlight(t, rep, 10, tc.budget > time.Second)
		})
	}
}

// TestKilledHolderFreesItsSlots: a process killed holding every slot frees them at
// their lease's end.
func TestKilledHolderFreesItsSlots(t *testing.T) {
	st, _, table := newTestStore(t)
	t.Setenv(envTable, table)
	storetest.KilledHolder(t, st, 10, time.Second)
}
