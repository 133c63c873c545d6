package hotcounter_test

import (
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
)

// TestIdleLeasesGivenBack: 4 instances, each its own decorator and dynamodb store on
// DynamoDB Local, turn hot on one fixed window of 2,000 a minute (1,000 decisions a
// second each for 250 ms, their instants interleaved), then three of them go idle (one
// decision each on another counter, 0.5 s later) while the fourth goes on at 1,000 a
// second until the window is used up. The idle instances give their leases back, so
// the window admits its limit within 1% (before, the idle instances' leases were lost
// until the window's end).
func TestIdleLeasesGivenBack(t *testing.T) {
	endpoint := testenv.DynamoDBURL(t)
	table := newTable(t, endpoint)
	const limit = 2000
	c := counter(t, "tenant", `{"algorithm": "fixed_window", "limit": 2000, "period": "1m"}`)
	other := counter(t, "other", `{"algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	var ss [4]*hotcounter.Store
	for i := range ss {
		ss[i] = newHot(dynamodb.NewCounters(ddbClient(endpoint, nil), table, dynamodb.CountersConfig{}))
	}
	admitted, at := int64(0), t0
	for i := range 1000 { // 250 ms: 1,000 a second on each instance
		at = t0 + int64(i)*250
		if decide(t, ss[i%4], []store.Counter{c}, at, 1).Allowed {
			admitted++
		}
	}
	for _, s := range ss[1:] { // idle on c: a decision on another counter
		decide(t, s, []store.Counter{other}, at+500_000, 1)
	}
	for i := range 1500 { // 1.5 s at 1,000 a second: past the limit
		if decide(t, ss[0], []store.Counter{c}, at+500_000+int64(i)*1_000, 1).Allowed {
			admitted++
		}
	}
	var returned, lost int64
	for _, s := range ss {
		returned, lost = returned+s.Stats().Returned, lost+s.Stats().Lost
	}
	t.Logf("admitted %d of %d; given back %d units, lost %d", admitted, limit, returned, lost)
	if admitted > limit || admitted < limit-limit/100 {
		t.Errorf("admitted %d: want the limit %d within 1%%", admitted, limit)
	}
}
