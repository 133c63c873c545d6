package upstash

import (
	"context"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// maxDecideAllocs is the most allocations a decision may cost in this process: the
// Counters, the REST client and its connection pool (#17). The server is
// `edgelimit upstash-local`, another process, so every allocation counted is ours.
const maxDecideAllocs = 40

// TestDecideAllocations holds a decision of benchRule (what BenchmarkStoreDecide
// decides) to maxDecideAllocs, alone and 16 at once; the latter counts the goroutines'
// own allocations too.
func TestDecideAllocations(t *testing.T) {
	st := newTestStore(t, nil)
	if raceEnabled {
		t.Skip("-race: allocation counts are the race detector's (scripts/test.sh runs this without it)")
	}
	set := storetest.Set(t, nil, benchRule)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	ctx := context.Background()
	keys := make([]string, 16)
	for i := range keys {
		keys[i] = storetest.Key(t, "allocs")
	}
	i := int64(0)
	decide := func(key string) {
		i++
		if _, err := store.DecideOne(ctx, st, key, set, at+i*100, 1); err != nil {
			t.Error(err)
		}
	}
	decide(keys[0]) // the script into the server's cache, a connection into the pool
	if n := testing.AllocsPerRun(200, func() { decide(keys[0]) }); n > maxDecideAllocs {
		t.Errorf("one caller: %.1f allocations per decision, want at most %d", n, maxDecideAllocs)
	}
	var mu sync.Mutex
	concurrent := func() {
		var wg sync.WaitGroup
		for _, key := range keys {
			wg.Go(func() {
				mu.Lock()
				now := at + i*100
				i++
				mu.Unlock()
				if _, err := store.DecideOne(ctx, st, key, set, now, 1); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	concurrent() // a connection per caller into the pool
	if n := testing.AllocsPerRun(20, concurrent) / float64(len(keys)); n > maxDecideAllocs {
		t.Errorf("16 callers: %.1f allocations per decision, want at most %d", n, maxDecideAllocs)
	}
}
