package headers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"time"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// printFields prints h one field a line, in the order of the names.
func printFields(h http.Header) {
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf("%s: %s\n", k, h.Get(k))
	}
}

// The rule set of a tenant: a burst of 500 refilled at 100 a second, and a daily quota.
func exampleSet() *limiter.Set {
	burst, _ := limiter.ParseRule([]byte(`{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}`))
	daily, _ := limiter.ParseRule([]byte(`{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}`))
	set, err := limiter.NewSet([]limiter.Rule{burst, daily}, nil)
	if err != nil {
		panic(err)
	}
	return set
}

// The 501st request of an instant finds the bucket empty: it may retry in 10ms, which
// Retry-After rounds up to 1 second, and the bucket is full again in 5 seconds.
func ExampleWriteDenied() {
	set := exampleSet()
	states := set.NewStates()
	now := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	var d limiter.Decision
	for range 501 {
		d, _ = set.Decide(states, now, 1)
	}

	rec := httptest.NewRecorder()
	headers.WriteDenied(rec, set, d, now)
	fmt.Println(rec.Code)
	printFields(rec.Header())
	fmt.Println(rec.Body)
	// Output:
	// 429
	// Cache-Control: no-store
	// Content-Length: 127
	// Content-Type: application/json
	// Ratelimit: "burst";r=0;t=1
	// Ratelimit-Policy: "burst";q=100;w=1;edgelimit-burst=500, "daily";q=10000;w=86400
	// Retry-After: 1
	// X-Ratelimit-Limit: 500
	// X-Ratelimit-Remaining: 0
	// X-Ratelimit-Reset: 1796040005
	// {"message":"Too Many Requests","retry_after":1,"limit":500,"remaining":0,"reset":1796040005,"rule":"burst","fail_closed":false}
}

// Late in the day the daily quota is the closer to running out: the RateLimit item
// names it, with the seconds to midnight (UTC here) as its effective window, while
// X-RateLimit-Reset is when the first rule is full again: the bucket, 10ms later.
func ExampleWrite() {
	set := exampleSet()
	states := set.NewStates()
	morning := limiter.Micros(time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC))
	for i := range 9900 { // 9,900 requests from 08:00, 100 a minute
		set.Decide(states, morning+int64(i)*600_000, 1)
	}
	now := limiter.Micros(time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC))
	d, _ := set.Decide(states, now, 1)

	h := http.Header{}
	headers.Write(h, set, d, now)
	printFields(h)
	// Output:
	// Ratelimit: "daily";r=99;t=7200
	// Ratelimit-Policy: "burst";q=100;w=1;edgelimit-burst=500, "daily";q=10000;w=86400
	// X-Ratelimit-Limit: 10000
	// X-Ratelimit-Remaining: 99
	// X-Ratelimit-Reset: 1796076001
}
