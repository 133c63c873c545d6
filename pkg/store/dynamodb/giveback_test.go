package dynamodb

import (
	"context"
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestGiveBack: units given back within their window come off every rule's count; a
// window that has ended takes nothing back (no error); a set with a bucket is refused.
func TestGiveBack(t *testing.T) {
	st, _, _ := newTestStore(t)
	ctx := context.Background()
	set := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`,
		`{"name": "s", "algorithm": "sliding_window", "limit": 10, "period": "1m"}`)
	key := storetest.Key(t, "k")
	at := int64(1_800_000_000_000_000) // the start of a minute
	if _, err := store.DecideOne(ctx, st, key, set, at, 5); err != nil {
		t.Fatal(err)
	}
	remaining := func(when int64) [2]int64 {
		outs := make([]limiter.Outcome, 2)
		if _, err := st.Peek(ctx, key, set, when, outs); err != nil {
			t.Fatal(err)
		}
		return [2]int64{outs[0].Remaining, outs[1].Remaining}
	}
	if err := st.GiveBack(ctx, key, set, at+1, 3); err != nil {
		t.Fatal(err)
	}
	if got := remaining(at + 2); got != [2]int64{8, 8} {
		t.Errorf("after giving 3 of 5 back: remaining %v, want [8 8]", got)
	}
	if err := st.GiveBack(ctx, key, set, at+60_000_000, 2); err != nil {
		t.Errorf("giving back in a later window: %v, want nil", err)
	}
	if got := remaining(at + 3); got != [2]int64{8, 8} {
		t.Errorf("after giving back in a later window: remaining %v, want [8 8]", got)
	}
	bucket := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 10, "period": "1m"}`)
	if err := st.GiveBack(ctx, key, bucket, at, 1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a bucket: %v, want ErrUnsupported", err)
	}
}

// TestDecideAfterAllGivenBack: a fixed window given back to 0 within its window is
// decided again (a regression test: the write took a count of 0 for a new window,
// whose condition, an older window, failed on every attempt: ErrContention).
func TestDecideAfterAllGivenBack(t *testing.T) {
	st, _, _ := newTestStore(t)
	set := storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	key := storetest.Key(t, "k")
	at := int64(1_800_000_000_000_000)
	if _, err := store.DecideOne(t.Context(), st, key, set, at, 4); err != nil {
		t.Fatal(err)
	}
	if err := st.GiveBack(t.Context(), key, set, at+1, 4); err != nil {
		t.Fatal(err)
	}
	if d, err := store.DecideOne(t.Context(), st, key, set, at+2, 3); err != nil || !d.Allowed || d.Remaining != 7 {
		t.Fatalf("after giving all back: %+v, %v; want allowed with 7 remaining", d, err)
	}
}
