package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// The rules of the exactness cases.
const (
	exactFixed  = `{"name": "window", "algorithm": "fixed_window", "limit": 100, "period": "1m"}`
	exactBucket = `{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1m", "burst": 60}`
	exactTenant = `{"name": "tenant", "algorithm": "fixed_window", "limit": 50, "period": "1m"}`
	exactKey    = `{"name": "key", "algorithm": "fixed_window", "limit": 20, "period": "1m"}`
)

// exactCase is one exactness check: callers decide at one frozen instant, and together
// they must be admitted exactly want, no caller more than perCaller (0: no bound).
type exactCase struct {
	name      string
	callers   [][]jobCounter
	want      int64
	perCaller int64
}

// exactCases builds the cases on fresh keys: one key alone; three API keys of one
// tenant sharing a tenant-scope counter; and the same three with a key-scope counter
// each beside the tenant's.
func exactCases(t *testing.T) []exactCase {
	one := func(rules ...string) [][]jobCounter { return [][]jobCounter{{{Key: Key(t, "k"), Rules: rules}}} }
	tenant := Key(t, "tenant")
	shared := make([][]jobCounter, 3)
	scoped := make([][]jobCounter, 3)
	for i := range 3 {
		shared[i] = []jobCounter{{Key: tenant + ":shared", Rules: []string{exactFixed}}}
		scoped[i] = []jobCounter{{Key: tenant + ":scoped", Rules: []string{exactTenant}}, {Key: Key(t, "key"), Rules: []string{exactKey}}}
	}
	return []exactCase{
		{"fixed window 100", one(exactFixed), 100, 0},
		{"token bucket 100", one(`{"algorithm": "token_bucket", "limit": 100, "period": "1m"}`), 100, 0},
		{"fixed window 100 + token bucket burst 60", one(exactFixed, exactBucket), 60, 0},
		{"tenant scope 100 shared by 3 keys", shared, 100, 0},
		{"tenant 50 + key 20 for each of 3 keys", scoped, 50, 20},
	}
}

// Exactness is the cross-process exactness check every shared backend runs: 3 OS
// processes x 16 goroutines at one frozen instant admit exactly what one serial
// limiter would, on one key and across the counters of three API keys of one tenant,
// and a denial consumes nothing from any counter.
func Exactness(t *testing.T, st store.Counters) {
	runExactness(t, st, func(t *testing.T, j job) []int64 { return Processes(t, 3, j) })
}

// ExactnessInProcess is Exactness for a store that lives in one process (the memory
// backend): the same cases, 48 goroutines of this process.
func ExactnessInProcess(t *testing.T, st store.Counters) {
	runExactness(t, st, func(t *testing.T, j job) []int64 {
		j.Goroutines *= 3
		n, err := runJob(t.Context(), st, j)
		if err != nil {
			t.Fatal(err)
		}
		return n
	})
}

func runExactness(t *testing.T, st store.Counters, run func(*testing.T, job) []int64) {
	at := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	for _, tc := range exactCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, job{Callers: tc.callers, At: at, Goroutines: 16, Each: 4})
			var total int64
			for i, n := range got {
				total += n
				if tc.perCaller > 0 && n > tc.perCaller {
					t.Errorf("caller %d was admitted %d, above its key's limit of %d", i, n, tc.perCaller)
				}
			}
			if total != tc.want {
				t.Fatalf("3 x 16 goroutines x 4 requests admitted %d, want exactly %d", total, tc.want)
			}
			checkNothingLeaked(t, st, tc, at, got)
		})
	}
}

// checkNothingLeaked peeks at every counter: each shows exactly what its callers were
// admitted, so a denial consumed nothing anywhere.
func checkNothingLeaked(t *testing.T, st store.Counters, tc exactCase, at int64, admitted []int64) {
	used := map[string]int64{}
	rules := map[string][]string{}
	for i, cs := range tc.callers {
		for _, c := range cs {
			used[c.Key] += admitted[i]
			rules[c.Key] = c.Rules
		}
	}
	for key, want := range used {
		set := Set(t, nil, rules[key]...)
		outs := make([]limiter.Outcome, set.Len())
		if _, err := st.Peek(context.Background(), key, set, at, outs); err != nil {
			t.Fatal(err)
		}
		if set.Rule(0).Algorithm != limiter.FixedWindow {
			continue // a bucket's Remaining is not a count
		}
		if got := set.Rule(0).Limit - outs[0].Remaining; got != want {
			t.Errorf("counter %s shows %d used, its callers were admitted %d: a denial consumed", key, got, want)
		}
	}
}
