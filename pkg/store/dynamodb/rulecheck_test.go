package dynamodb

import (
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// CheckRule says what Decide refuses, so that config can be refused when written: a
// sliding_log above MaxLogLimit, as a FieldError on its limit (concurrency is
// honoured). Decide refuses the same set with ErrUnsupported before any request (the
// Counters here has no client).
func TestCheckRuleMatchesDecide(t *testing.T) {
	st := NewCounters(nil, "counters", CountersConfig{})
	atCap := storetest.Set(t, nil, `{"algorithm": "sliding_log", "limit": 1000, "period": "1m"}`)
	over := storetest.Set(t, nil, `{"algorithm": "sliding_log", "limit": 1001, "period": "1m"}`)
	big := storetest.Set(t, nil, `{"algorithm": "sliding_window", "limit": 1000000, "period": "1m"}`)
	inflight := storetest.Set(t, nil, `{"algorithm": "concurrency", "limit": 1000000, "lease": "24h"}`)
	for _, set := range []*limiter.Set{atCap, big, inflight} {
		if err := store.CheckRule(st, set.Rule(0)); err != nil {
			t.Errorf("%s of %d: %v, want it honoured", set.Rule(0).Algorithm, set.Rule(0).Limit, err)
		}
	}
	var fe *limiter.FieldError
	if err := store.CheckRule(st, over.Rule(0)); !errors.As(err, &fe) || fe.Field != "limit" || fe.Value != "1001" {
		t.Fatalf("sliding_log of 1001: %v, want a FieldError on limit", err)
	}
	if _, err := store.DecideOne(t.Context(), st, "k", over, 1, 1); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Decide on a sliding_log of 1001: %v, want ErrUnsupported", err)
	}
}
