package redis

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestRoundTrips reads the commands the client writes: one EVALSHA per decision in the
// steady state, allowed or denied, on both scripts, for one counter and for three, on
// both topologies; EVALSHA then EVAL only when the server's script cache is cold.
func TestRoundTrips(t *testing.T) {
	cases := []struct {
		name  string
		rules []string // one rule set per counter
	}{
		{"bucket.lua", []string{`{"algorithm": "token_bucket", "limit": 5, "period": "1m"}`}},
		{"decide.lua", []string{`{"algorithm": "fixed_window", "limit": 3, "period": "1m"}`}},
		{"decide.lua, 3 counters", []string{`{"algorithm": "fixed_window", "limit": 9, "period": "1m"}`,
			`{"algorithm": "sliding_log", "limit": 4, "period": "1m"}`, `{"algorithm": "token_bucket", "limit": 5, "period": "1m"}`}},
	}
	forEachTopology(t, func(t *testing.T, topo topology) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rec := &recorder{}
				cfg := topo.config(t)
				cfg.Dial = rec.dial
				st := NewCounters(newTestClient(t, cfg), CountersConfig{})
				// Scripts the server has never seen (a unique comment), rather than SCRIPT
				// FLUSH, which would disturb other packages' tests on the same server.
				cold := "\n-- " + storetest.Key(t, "cold")
				st.lua.DecideScript = luascript.NewScript(luascript.DecideScript().Source() + cold)
				st.bucket = luascript.NewScript(luascript.BucketScript().Source() + cold)
				cs := make([]store.Counter, len(tc.rules))
				for i, rule := range tc.rules {
					cs[i] = store.Counter{Key: storetest.Key(t, fmt.Sprint(i)), Set: storetest.Set(t, nil, rule)}
				}
				checkRoundTrips(t, st, rec, cs)
			})
		}
	})
}

func checkRoundTrips(t *testing.T, st *Counters, rec *recorder, cs []store.Counter) {
	ctx := context.Background()
	outs := make([]limiter.Decision, len(cs))
	trace := storetest.Trace(1, 20, 1, storetest.Burst)
	rec.take(t)
	if err := st.Decide(ctx, cs, trace[0].At, 1, outs); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(t); !slices.Equal(got, []string{"EVALSHA", "EVAL"}) {
		t.Fatalf("first decision with a cold script cache sent %v, want [EVALSHA EVAL]", got)
	}
	allowed := map[bool]int{}
	for _, r := range trace[1:] {
		if err := st.Decide(ctx, cs, r.At, 1, outs); err != nil {
			t.Fatal(err)
		}
		d, _ := limiter.Join(outs)
		allowed[d.Allowed]++
		if got := rec.take(t); !slices.Equal(got, []string{"EVALSHA"}) {
			t.Fatalf("decision (allowed=%v) sent %v, want [EVALSHA]", d.Allowed, got)
		}
	}
	if allowed[false] == 0 {
		t.Fatal("the trace never reached a denial; the test proves nothing about denials")
	}
}
