package hotcounter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv/ddbthrottle"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestGateFailModeWhenNothingWorks: when DynamoDB throttles the tenant's counter on
// every attempt (cold decision, then reservations), the throttled reservations are
// denials (the counter is hot and its item busy) until they have been throttled in a
// row for 5 s; then the gate answers the tenant's fail mode, flagged: open allows,
// closed denies.
// Never an admission without the fail mode saying so.
func TestGateFailModeWhenNothingWorks(t *testing.T) {
	clk := &fakeClock{}
	th := ddbthrottle.New(ddbthrottle.Config{WriteUnits: 1, Now: clk.Now}) // two writes, then none
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte("{}"))
	}))
	defer stub.Close()
	counters := newHot(dynamodb.NewCounters(ddbClient(stub.URL, th.Transport(nil), noRetries), "counters", dynamodb.CountersConfig{}))
	tenants := memory.NewTenants()
	keys := map[string]string{}
	for _, mode := range []string{"open", "closed"} {
		tn, err := tenant.Decode([]byte(`{"id": "` + mode + `co", "fail_mode": "` + mode + `",
			"rules": [{"name": "burst", "algorithm": "token_bucket", "limit": 1000, "period": "1s"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tenants.Create(context.Background(), tn); err != nil {
			t.Fatal(err)
		}
		k, rec := apikey.Generate(tn.ID, t0)
		if err := tenants.PutKey(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		keys[mode] = k.Reveal()
	}
	now := t0 // each check a second later: past every backoff
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: func() int64 { return now }})
	if err != nil {
		t.Fatal(err)
	}
	check := func(mode string) gate.Result {
		res, err := g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/", APIKey: keys[mode]})
		if err != nil {
			t.Fatal(err)
		}
		now += 1_000_000
		return res
	}
	for range 2 { // each key's burst: two writes
		if a, b := check("open"), check("closed"); a.Status != gate.Allowed || a.FailOpen || b.Status != gate.Allowed || b.FailedClosed {
			t.Fatalf("within capacity: %+v, %+v", a, b)
		}
	}
	// Each tenant's counter is checked every 2 s: its throttled reservations at 0, 2
	// and 4 s after the first are denials, the one at 6 s is past the 5 s outage.
	for i := range 3 {
		if a, b := check("open"), check("closed"); a.Status != gate.Denied || a.FailOpen || b.Status != gate.Denied || b.FailedClosed {
			t.Fatalf("throttled reservation %d: %+v, %+v: want denials, not the fail mode", i+1, a, b)
		}
	}
	open, closed := check("open"), check("closed")
	if open.Status != gate.Allowed || !open.FailOpen || !strings.Contains(open.Reason, "throttled") {
		t.Fatalf("open tenant, throttled: %+v", open)
	}
	if closed.Status != gate.Denied || !closed.FailedClosed || !strings.Contains(closed.Reason, "throttled") {
		t.Fatalf("closed tenant, throttled: %+v", closed)
	}
}
