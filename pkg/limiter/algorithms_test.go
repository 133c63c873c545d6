package limiter

import (
	"testing"
	"time"
)

func TestFixedWindow(t *testing.T) {
	const rule = `{"algorithm": "fixed_window", "limit": 3, "period": "1s"}`
	tests := []struct {
		name  string
		rule  string
		steps []step
	}{
		{"window-boundary burst lets twice the limit through", rule, []step{
			{name: "late in window 1", at: 900 * time.Millisecond, allowed: true, remaining: 2},
			{at: 900 * time.Millisecond, allowed: true, remaining: 1},
			{at: 900 * time.Millisecond, allowed: true, remaining: 0},
			{name: "4th denied until the boundary", at: 950 * time.Millisecond, remaining: 0, retry: 50 * time.Millisecond},
			{name: "new window", at: time.Second, allowed: true, remaining: 2},
			{at: time.Second, allowed: true, remaining: 1},
			{name: "6 within 100ms", at: time.Second, allowed: true, remaining: 0},
		}},
		{"many requests at one instant", rule, []step{
			{allowed: true, remaining: 2}, {allowed: true, remaining: 1}, {allowed: true, remaining: 0},
			{remaining: 0, retry: time.Second}, {remaining: 0, retry: time.Second},
		}},
		{"cost above what remains is denied and consumes nothing", rule, []step{
			{cost: 2, allowed: true, remaining: 1},
			{name: "cost 2 with 1 left", at: 10 * time.Millisecond, cost: 2, remaining: 1, retry: 990 * time.Millisecond},
			{name: "the 1 left is still there", at: 20 * time.Millisecond, allowed: true, remaining: 0},
		}},
		{"steady traffic above the rate", rule, []step{
			{at: 0, allowed: true, remaining: 2}, {at: 250 * time.Millisecond, allowed: true, remaining: 1},
			{at: 500 * time.Millisecond, allowed: true, remaining: 0}, {at: 750 * time.Millisecond, remaining: 0, retry: 250 * time.Millisecond},
			{at: 1000 * time.Millisecond, allowed: true, remaining: 2},
		}},
		{"first_request anchor opens the window at the first request", `{"algorithm": "fixed_window", "limit": 2, "period": "1s", "anchor": "first_request"}`, []step{
			{at: 700 * time.Millisecond, allowed: true, remaining: 1},
			{at: 1200 * time.Millisecond, allowed: true, remaining: 0},
			{name: "window is [0.7s, 1.7s)", at: 1500 * time.Millisecond, remaining: 0, retry: 200 * time.Millisecond},
			{name: "next window opens at 1.8s", at: 1800 * time.Millisecond, allowed: true, remaining: 1},
			{at: 2700 * time.Millisecond, allowed: true, remaining: 0},
			{at: 2799 * time.Millisecond, remaining: 0, retry: time.Millisecond},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, mustSet(t, nil, tt.rule), tt.steps) })
	}
}

func TestSlidingLog(t *testing.T) {
	const rule = `{"algorithm": "sliding_log", "limit": 3, "period": "1s"}`
	tests := []struct {
		name  string
		steps []step
	}{
		{"no burst across a window boundary", []step{
			{at: 900 * time.Millisecond, allowed: true, remaining: 2},
			{at: 900 * time.Millisecond, allowed: true, remaining: 1},
			{at: 900 * time.Millisecond, allowed: true, remaining: 0},
			{name: "boundary of the fixed window", at: time.Second, remaining: 0, retry: 900 * time.Millisecond},
			{name: "an entry leaves at exactly t+period", at: 1900 * time.Millisecond, allowed: true, remaining: 2},
		}},
		{"retry waits for enough entries to leave", []step{
			{at: 0, allowed: true, remaining: 2},
			{at: 100 * time.Millisecond, allowed: true, remaining: 1},
			{at: 200 * time.Millisecond, allowed: true, remaining: 0},
			{name: "cost 2 needs two entries to leave", at: 300 * time.Millisecond, cost: 2, remaining: 0, retry: 800 * time.Millisecond},
			{at: 1100 * time.Millisecond, cost: 2, allowed: true, remaining: 0},
		}},
		{"steady traffic above the rate", []step{
			{at: 0, allowed: true, remaining: 2}, {at: 400 * time.Millisecond, allowed: true, remaining: 1},
			{at: 800 * time.Millisecond, allowed: true, remaining: 0}, {at: 1200 * time.Millisecond, allowed: true, remaining: 0},
			{at: 1300 * time.Millisecond, remaining: 0, retry: 100 * time.Millisecond},
			{at: 1600 * time.Millisecond, allowed: true, remaining: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, mustSet(t, nil, rule), tt.steps) })
	}
}

func TestSlidingWindow(t *testing.T) {
	const rule = `{"algorithm": "sliding_window", "limit": 10, "period": "1m"}`
	var fill []step
	for i := range 10 {
		fill = append(fill, step{name: "fill the previous window", at: -time.Minute, allowed: true, remaining: int64(9 - i)})
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"previous window weighs by the time left", append(append([]step{}, fill...),
			// 15s in: weight 45/60 of 10 = 7.5, floored in `remaining`: 10 - 0 - 7 = 3 units fit.
			step{name: "15s in", at: 15 * time.Second, allowed: true, remaining: 2},
			step{at: 15 * time.Second, allowed: true, remaining: 1},
			step{at: 15 * time.Second, cost: 1, allowed: true, remaining: 0},
			// Now curr=3: 10*(60-e)/60 + 3 < 10 needs e > 18s.
			step{name: "exact retry", at: 15 * time.Second, remaining: 0, retry: 3*time.Second + time.Microsecond},
			step{at: 18*time.Second + time.Microsecond, allowed: true, remaining: 0},
		)},
		{"cost above 1 uses the exact inequality, no flooring", append(append([]step{}, fill...),
			// 30s in: 10*30/60 = 5 → 5 units fit; cost 6 must be denied, and fits once
			// the previous window weighs strictly less than 5: 1us later.
			step{at: 30 * time.Second, cost: 6, remaining: 5, retry: time.Microsecond},
			step{at: 30 * time.Second, cost: 5, allowed: true, remaining: 0},
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, mustSet(t, nil, rule), tt.steps) })
	}
}

func TestTokenBucket(t *testing.T) {
	const rule = `{"algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 5}`
	tests := []struct {
		name  string
		steps []step
	}{
		{"a burst into a full bucket", []step{
			{allowed: true, remaining: 4}, {allowed: true, remaining: 3}, {allowed: true, remaining: 2},
			{allowed: true, remaining: 1}, {allowed: true, remaining: 0},
			{name: "empty: next token in 100ms", remaining: 0, retry: 100 * time.Millisecond},
			{at: 99 * time.Millisecond, remaining: 0, retry: time.Millisecond},
			{at: 100 * time.Millisecond, allowed: true, remaining: 0},
		}},
		{"refills to burst, never above", []step{
			{cost: 5, allowed: true, remaining: 0},
			{name: "an hour later", at: time.Hour, cost: 5, allowed: true, remaining: 0},
			{at: time.Hour, remaining: 0, retry: 100 * time.Millisecond},
		}},
		{"steady traffic above the rate", []step{
			{cost: 5, allowed: true, remaining: 0},
			{at: 50 * time.Millisecond, remaining: 0, retry: 50 * time.Millisecond},
			{at: 100 * time.Millisecond, allowed: true, remaining: 0},
			{at: 150 * time.Millisecond, remaining: 0, retry: 50 * time.Millisecond},
			{at: 200 * time.Millisecond, allowed: true, remaining: 0},
		}},
		{"cost above 1 at the edge", []step{
			{cost: 4, allowed: true, remaining: 1},
			{name: "3 with 1 token waits for 2 more", cost: 3, remaining: 1, retry: 200 * time.Millisecond},
			{at: 200 * time.Millisecond, cost: 3, allowed: true, remaining: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, mustSet(t, nil, rule), tt.steps) })
	}
}

func TestTokenBucketFractionalInterval(t *testing.T) {
	// 3 per 1s: T = 333333 1/3 us. Tokens come back at 333334us, 666667us, 1s.
	s := mustSet(t, nil, `{"algorithm": "token_bucket", "limit": 3, "period": "1s"}`)
	runSteps(t, s, []step{
		{cost: 3, allowed: true, remaining: 0},
		{remaining: 0, retry: 333334 * time.Microsecond},
		{at: 333333 * time.Microsecond, remaining: 0, retry: time.Microsecond},
		{at: 333334 * time.Microsecond, allowed: true, remaining: 0},
		{at: time.Second, cost: 2, allowed: true, remaining: 0},
	})
}

func TestLeakyBucketDelays(t *testing.T) {
	s := mustSet(t, nil, `{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 50}`)
	var steps []step
	for i := range 50 {
		steps = append(steps, step{allowed: true, remaining: int64(49 - i), delay: time.Duration(i) * 100 * time.Millisecond})
	}
	steps = append(steps,
		step{name: "51st rejected", remaining: 0, retry: 100 * time.Millisecond},
		step{name: "half the queue drained", at: 2500 * time.Millisecond, allowed: true, remaining: 24, delay: 2500 * time.Millisecond},
	)
	runSteps(t, s, steps)
}

func TestLeakyAdmitsWhatTokenAdmits(t *testing.T) {
	tok := mustSet(t, nil, `{"algorithm": "token_bucket", "limit": 7, "period": "1s", "burst": 4}`)
	leak := mustSet(t, nil, `{"algorithm": "leaky_bucket", "limit": 7, "period": "1s", "burst": 4}`)
	ts, ls := tok.NewStates(), leak.NewStates()
	for _, r := range randomTrace(42, 2000, 3) {
		a, _ := tok.Decide(ts, r.at, r.cost)
		b, _ := leak.Decide(ls, r.at, r.cost)
		if a.Allowed != b.Allowed || a.Remaining != b.Remaining || a.RetryAfter != b.RetryAfter {
			t.Fatalf("at %d cost %d: token %+v, leaky %+v", r.at, r.cost, a, b)
		}
	}
}
