package admin_test

import (
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"
)

// TestConcurrentPatches sends 20 PATCHes with the same If-Match at once: exactly one
// wins (200), nineteen get 412, and the stored tenant is the winner's answer.
func TestConcurrentPatches(t *testing.T) {
	const n = 20
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		zones := []string{"Europe/Paris", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati"}
		results := race(n, func(i int) response {
			return e.do("PATCH", "/tenants/acme",
				fmt.Sprintf(`{"metadata": {"writer": "w%d"}, "timezone": %q}`, i, zones[i%len(zones)]),
				"Content-Type", patchType, "If-Match", `"1"`)
		})
		var winners []response
		for _, r := range results {
			switch r.status {
			case http.StatusOK:
				winners = append(winners, r)
			case http.StatusPreconditionFailed:
				r.problem(t, http.StatusPreconditionFailed, "precondition-failed", "If-Match")
			default:
				t.Fatalf("status %d: %s", r.status, r.body)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("%d PATCHes won, want 1", len(winners))
		}
		won := winners[0].tenant(t)
		stored := e.do("GET", "/tenants/acme", "").want(t, 200)
		if got := stored.tenant(t); !reflect.DeepEqual(got, won) || got.Version != 2 || stored.header.Get("ETag") != `"2"` {
			t.Fatalf("stored %+v\nwinner %+v", got, won)
		}
		if len(won.ZoneChanges) != 1 || won.ZoneChanges[0].To != won.Timezone {
			t.Errorf("zone history %+v", won.ZoneChanges)
		}
	})
}

// TestConcurrentCreates sends 10 PUTs creating one tenant at once: one 201, nine 409.
func TestConcurrentCreates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		results := race(10, func(int) response { return e.do("PUT", "/tenants/acme", acme) })
		created := 0
		for _, r := range results {
			switch r.status {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Fatalf("status %d: %s", r.status, r.body)
			}
		}
		if created != 1 {
			t.Fatalf("%d creations, want 1", created)
		}
	})
}

// race runs do(0) to do(n-1) concurrently, released together, and returns their
// results in order.
func race(n int, do func(i int) response) []response {
	results := make([]response, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = do(i)
		}()
	}
	close(start)
	wg.Wait()
	return results
}
