package limiter_test

import (
	"fmt"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// A token bucket of 10 per second with a burst of 3: three requests at one instant
// pass, the fourth waits for the next token, 100ms later.
func ExampleSet_Decide() {
	rule, err := limiter.ParseRule([]byte(`{"algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 3}`))
	if err != nil {
		panic(err)
	}
	set, err := limiter.NewSet([]limiter.Rule{rule}, nil)
	if err != nil {
		panic(err)
	}
	states := set.NewStates() // one key's state: a key never seen
	now := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	for range 4 {
		d, _ := set.Decide(states, now, 1)
		fmt.Printf("allowed=%v remaining=%d retry_after=%v\n", d.Allowed, d.Remaining, time.Duration(d.RetryAfter)*time.Microsecond)
	}
	// Output:
	// allowed=true remaining=2 retry_after=0s
	// allowed=true remaining=1 retry_after=0s
	// allowed=true remaining=0 retry_after=0s
	// allowed=false remaining=0 retry_after=100ms
}

// A leaky bucket admits what the token bucket admits and reports when the constant
// outflow reaches each request.
func ExampleSet_Decide_leakyBucket() {
	rule, _ := limiter.ParseRule([]byte(`{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 50}`))
	set, _ := limiter.NewSet([]limiter.Rule{rule}, nil)
	states := set.NewStates()
	now := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	for i := 1; i <= 51; i++ {
		d, _ := set.Decide(states, now, 1)
		if i == 1 || i == 2 || i >= 50 {
			fmt.Printf("#%d allowed=%v delay=%v\n", i, d.Allowed, time.Duration(d.Delay)*time.Microsecond)
		}
	}
	// Output:
	// #1 allowed=true delay=0s
	// #2 allowed=true delay=100ms
	// #50 allowed=true delay=4.9s
	// #51 allowed=false delay=0s
}

// Rules are validated with errors that name the field, the value and the reason.
func ExampleParseRule() {
	_, err := limiter.ParseRule([]byte(`{"algorithm": "sliding_window", "limit": 100, "period": "1m", "burst": 10}`))
	fmt.Println(err)
	_, err = limiter.ParseRule([]byte(`{"algorithm": "fixed_window", "limit": 1.5, "period": "day"}`))
	fmt.Println(err)
	// Output:
	// burst = 10: applies to token_bucket and leaky_bucket only
	// limit = 1.5: must be a JSON integer
}

// A daily quota follows the tenant's time zone: in New York the window is the local
// day, 23 hours long on the day clocks go forward.
func ExampleZone_Window() {
	ny, _ := time.LoadLocation("America/New_York")
	zone := limiter.FixedZone(ny)
	at := limiter.Micros(time.Date(2026, 3, 8, 12, 0, 0, 0, ny))
	start, end := zone.Window(limiter.Day, at)
	fmt.Println(limiter.Time(start).In(ny), "+", time.Duration(end-start)*time.Microsecond)
	// Output:
	// 2026-03-08 00:00:00 -0500 EST + 23h0m0s
}
