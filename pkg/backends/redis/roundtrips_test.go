package redis

import (
	"context"
	"slices"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
	"github.com/edgelimit/edgelimit/pkg/backends/upstash"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// TestRoundTrips reads the commands the client writes: one EVALSHA per decision in the
// steady state, allowed or denied, on both scripts and both topologies, and EVALSHA
// then EVAL only when the server's script cache is cold.
func TestRoundTrips(t *testing.T) {
	sets := map[string]string{
		"bucket.lua": `{"algorithm": "token_bucket", "limit": 5, "period": "1m"}`,
		"decide.lua": `{"algorithm": "fixed_window", "limit": 3, "period": "1m"}`,
	}
	forEachTopology(t, func(t *testing.T, topo topology) {
		for script, rule := range sets {
			t.Run(script, func(t *testing.T) {
				rec := &recorder{}
				cfg := topo.config(t)
				cfg.Dial = rec.dial
				store := NewStore(newTestClient(t, cfg), StoreConfig{})
				// Scripts the server has never seen (a unique comment), rather than SCRIPT
				// FLUSH, which would disturb other packages' tests on the same server.
				cold := "\n-- " + storetest.Key(t, "cold")
				store.decide = upstash.NewScript(upstash.DecideScript().Source() + cold)
				store.bucket = upstash.NewScript(upstash.BucketScript().Source() + cold)
				set := storetest.Set(t, nil, rule)
				checkRoundTrips(t, store, rec, set)
			})
		}
	})
}

func checkRoundTrips(t *testing.T, store *Store, rec *recorder, set *limiter.Set) {
	ctx := context.Background()
	key := storetest.Key(t, "k")
	trace := storetest.Trace(1, 20, 1, storetest.Burst)
	rec.take(t)
	if _, err := backends.DecideOne(ctx, store, key, set, trace[0].At, 1); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(t); !slices.Equal(got, []string{"EVALSHA", "EVAL"}) {
		t.Fatalf("first decision with a cold script cache sent %v, want [EVALSHA EVAL]", got)
	}
	allowed := map[bool]int{}
	for _, r := range trace[1:] {
		d, err := backends.DecideOne(ctx, store, key, set, r.At, 1)
		if err != nil {
			t.Fatal(err)
		}
		allowed[d.Allowed]++
		if got := rec.take(t); !slices.Equal(got, []string{"EVALSHA"}) {
			t.Fatalf("decision (allowed=%v) sent %v, want [EVALSHA]", d.Allowed, got)
		}
	}
	if allowed[false] == 0 {
		t.Fatal("the trace never reached a denial; the test proves nothing about denials")
	}
}
