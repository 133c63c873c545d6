package gate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

var _ gate.InProcess = (*memory.Counters)(nil)

// requestKey is a value of the request's context, which only a store called on the
// request's goroutine, under its context, sees.
type requestKey struct{}

// contextStore forwards Decide to the memory store (or answers fail), recording whether
// each call saw the request's context value.
type contextStore struct {
	store.Counters
	fail    error
	sawReq  []bool
	counted []int
}

func (s *contextStore) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	s.sawReq = append(s.sawReq, ctx.Value(requestKey{}) != nil)
	s.counted = append(s.counted, len(cs))
	if s.fail != nil {
		return s.fail
	}
	return s.Counters.Decide(ctx, cs, now, cost, outs)
}

// inProcessStore is a contextStore marked gate.InProcess.
type inProcessStore struct{ *contextStore }

func (inProcessStore) InProcess() {}

// An InProcess store's Decide runs under the request's own context (on its goroutine);
// any other store's runs apart, under a context holding nothing of the request's. Both
// decide alike: every counter of a request with a key-scoped and a tenant rule in one
// call, and a store error is answered by the tenant's fail mode.
func TestInProcessStoreDecidesOnTheRequest(t *testing.T) {
	cases := []struct {
		name        string
		inProcess   bool
		fail        error
		wantSawReq  bool
		wantAllowed []bool // three requests of one key
		wantFail    bool
	}{
		{name: "in process", inProcess: true, wantSawReq: true, wantAllowed: []bool{true, true, false}},
		{name: "apart", wantAllowed: []bool{true, true, false}},
		{name: "in process, failing", inProcess: true, fail: errors.New("broken"), wantSawReq: true, wantAllowed: []bool{true, true, true}, wantFail: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.createTenant(t, `{"id": "local", "fail_mode": "open", "rules": [
			  {"name": "hour", "algorithm": "fixed_window", "limit": 1000, "period": "1h"},
			  {"name": "per-key", "algorithm": "fixed_window", "limit": 2, "period": "1m", "scope": "key"}]}`)
			key, _ := f.addKey(t, "local")
			rec := &contextStore{Counters: memory.NewCounters(memory.CountersConfig{}), fail: tc.fail}
			var counters store.Counters = rec
			if tc.inProcess {
				counters = inProcessStore{rec}
			}
			g, err := gate.New(gate.Config{Tenants: f.tenants, Counters: counters, Now: f.clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.WithValue(context.Background(), requestKey{}, true)
			for i, want := range tc.wantAllowed {
				res, err := g.Check(ctx, gate.Request{Method: "GET", Resource: "/x", APIKey: key})
				if err != nil || (res.Status == gate.Allowed) != want || res.FailOpen != tc.wantFail || res.StoreCalls != 1 {
					t.Fatalf("request %d: %+v, %v; want allowed %v, fail open %v, one store call", i+1, res, err, want, tc.wantFail)
				}
			}
			if len(rec.sawReq) != len(tc.wantAllowed) {
				t.Fatalf("%d store calls, want %d", len(rec.sawReq), len(tc.wantAllowed))
			}
			for i, saw := range rec.sawReq {
				if saw != tc.wantSawReq || rec.counted[i] != 2 {
					t.Fatalf("call %d: saw the request's context %v, %d counters; want %v, 2", i+1, saw, rec.counted[i], tc.wantSawReq)
				}
			}
		})
	}
}
