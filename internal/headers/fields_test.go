package headers_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// sec renders epoch seconds t0s+n, as X-RateLimit-Reset shows them.
func sec(n int64) string { return strconv.FormatInt(t0s+n, 10) }

// step is one request of a decision table and the fields it must render.
type step struct {
	name   string
	at     time.Duration // since t0
	cost   int64         // 0 means 1
	before int           // requests decided at the same instant before this one
	want   fields        // policy is checked once per table, not per step
}

// run decides the steps in order on one key's states and checks what Write renders.
func run(t *testing.T, set *limiter.Set, policy string, steps []step) {
	t.Helper()
	states := set.NewStates()
	for _, s := range steps {
		now := t0 + s.at.Microseconds()
		cost := max(s.cost, 1)
		for range s.before {
			if _, err := set.Decide(states, now, cost); err != nil {
				t.Fatal(err)
			}
		}
		d, err := set.Decide(states, now, cost)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		headers.Write(h, set, d, now)
		want := s.want
		want.policy = policy
		if got := read(h); got != want {
			t.Errorf("%s (decision %+v):\n got %+v\nwant %+v", s.name, d, got, want)
		}
		checkSF(t, h)
	}
}

func TestWriteDecisions(t *testing.T) {
	t.Run("burst and a daily quota in Tokyo", func(t *testing.T) {
		// Tokyo's midnight is 3h after t0. The rule with the least remaining, and so
		// the RateLimit item and X-RateLimit-Limit, moves from burst to daily.
		set := mustSet(t, mustZone(t, "Asia/Tokyo"),
			`{"name": "burst", "algorithm": "token_bucket", "limit": 10, "period": "1s"}`,
			`{"name": "daily", "algorithm": "fixed_window", "limit": 12, "period": "day"}`)
		run(t, set, `"burst";q=10;w=1, "daily";q=12;w=86400`, []step{
			{name: "first request: burst is lowest, full again in 100ms", want: fields{
				limit: "10", remaining: "9", reset: sec(1), rateLimit: `"burst";r=9;t=1`}},
			{name: "10th request empties the bucket", before: 8, want: fields{
				limit: "10", remaining: "0", reset: sec(1), rateLimit: `"burst";r=0;t=1`}},
			{name: "11th is denied by burst for 100ms, rounded up", want: fields{
				retryAfter: "1", limit: "10", remaining: "0", reset: sec(1), rateLimit: `"burst";r=0;t=1`}},
			{name: "2s later daily is lowest: t is its window, reset the bucket's", at: 2 * time.Second, want: fields{
				limit: "12", remaining: "1", reset: sec(3), rateLimit: `"daily";r=1;t=10798`}},
			{name: "the daily quota's last request", at: 2 * time.Second, want: fields{
				limit: "12", remaining: "0", reset: sec(3), rateLimit: `"daily";r=0;t=10798`}},
			{name: "denied by daily until Tokyo's midnight", at: 2500 * time.Millisecond, want: fields{
				retryAfter: "10798", limit: "12", remaining: "0", reset: sec(10800), rateLimit: `"daily";r=0;t=10798`}},
		})
	})
	t.Run("cost above 1: one rule waits longest, another has the least remaining", func(t *testing.T) {
		set := mustSet(t, nil,
			`{"name": "minute", "algorithm": "fixed_window", "limit": 10, "period": "1m"}`,
			`{"name": "burst", "algorithm": "token_bucket", "limit": 1, "period": "1s", "burst": 5}`)
		run(t, set, `"minute";q=10;w=60, "burst";q=1;w=1;edgelimit-burst=5`, []step{
			{name: "4 of 5 tokens: the bucket is full again in 4s", cost: 4, want: fields{
				limit: "5", remaining: "1", reset: sec(4), rateLimit: `"burst";r=1;t=4`}},
			{name: "refilled, 4 more: minute has 2 left, burst 1", at: 10 * time.Second, cost: 4, want: fields{
				limit: "5", remaining: "1", reset: sec(14), rateLimit: `"burst";r=1;t=4`}},
			// minute denies for 50s (remaining 2), burst for 2s (remaining 1): the item
			// and Limit name minute, Remaining is burst's, Reset the latest denial's.
			{name: "3 more: both deny", at: 10 * time.Second, cost: 3, want: fields{
				retryAfter: "50", limit: "10", remaining: "1", reset: sec(60), rateLimit: `"minute";r=1;t=50`}},
		})
	})
	t.Run("rounding: 1 microsecond to wait is 1 second", func(t *testing.T) {
		set := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`)
		run(t, set, `"fixed_window";q=1;w=1`, []step{
			{name: "allowed", want: fields{
				limit: "1", remaining: "0", reset: sec(1), rateLimit: `"fixed_window";r=0;t=1`}},
			{name: "denied 1us before the window ends", at: time.Second - time.Microsecond, want: fields{
				retryAfter: "1", limit: "1", remaining: "0", reset: sec(1), rateLimit: `"fixed_window";r=0;t=1`}},
			{name: "the next window", at: time.Second, want: fields{
				limit: "1", remaining: "0", reset: sec(2), rateLimit: `"fixed_window";r=0;t=1`}},
		})
	})
	t.Run("rounding: a reset 1 microsecond away is the next second", func(t *testing.T) {
		set := mustSet(t, nil, `{"algorithm": "token_bucket", "limit": 1000000, "period": "1s"}`)
		run(t, set, `"token_bucket";q=1000000;w=1`, []step{
			{name: "one token of a million per second", want: fields{
				limit: "1000000", remaining: "999999", reset: sec(1), rateLimit: `"token_bucket";r=999999;t=1`}},
		})
	})
}

func TestRetryAfterRounding(t *testing.T) {
	set := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	for _, tc := range []struct {
		retry int64 // microseconds
		want  string
	}{
		{0, "1"}, // a denial never says "retry now"
		{1, "1"},
		{999_999, "1"},
		{1_000_000, "1"},
		{1_000_001, "2"},
		{2_500_000, "3"},
		{86_400_000_000, "86400"},
	} {
		d := limiter.Decision{Limit: 10, Reset: t0 + tc.retry, RetryAfter: tc.retry}
		h := http.Header{}
		headers.Write(h, set, d, t0)
		got := read(h)
		if got.retryAfter != tc.want || got.rateLimit != `"fixed_window";r=0;t=`+tc.want {
			t.Errorf("RetryAfter %dus: Retry-After %q, RateLimit %q; want %s", tc.retry, got.retryAfter, got.rateLimit, tc.want)
		}
		if body := headers.NewDenial(set, d, t0); strconv.FormatInt(body.RetryAfter, 10) != tc.want {
			t.Errorf("RetryAfter %dus: body retry_after %d, want %s", tc.retry, body.RetryAfter, tc.want)
		}
	}
}

func TestWritePolicy(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	nyAt := func(y int, m time.Month, d, hour int) int64 {
		return limiter.Micros(time.Date(y, m, d, hour, 0, 0, 0, ny.Location()))
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	// From UTC to Los Angeles at t0: the UTC day that holds t0 runs on to the next Los
	// Angeles midnight, Dec 1 08:00 UTC, 32 hours after it began.
	moved, err := limiter.NewZone(time.UTC, limiter.ZoneChange{At: t0, Loc: la})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		zone  *limiter.Zone
		at    int64
		rules []string
		want  string
	}{
		{"the example rules of the design", nil, t0, []string{
			`{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}`,
			`{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}`},
			`"burst";q=100;w=1;edgelimit-burst=500, "daily";q=10000;w=86400`},
		{"default name, minute window", nil, t0, []string{
			`{"algorithm": "fixed_window", "limit": 100, "period": "1m"}`},
			`"fixed_window";q=100;w=60`},
		{"a bucket whose burst is its limit has no burst parameter", nil, t0, []string{
			`{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 10}`},
			`"leaky_bucket";q=10;w=1`},
		{"sub-second and fractional periods round up", nil, t0, []string{
			`{"name": "a", "algorithm": "sliding_window", "limit": 10, "period": "100ms"}`,
			`{"name": "b", "algorithm": "sliding_log", "limit": 3, "period": "1ms"}`,
			`{"name": "c", "algorithm": "fixed_window", "limit": 5, "period": "1.5s", "anchor": "first_request"}`,
			`{"name": "d", "algorithm": "fixed_window", "limit": 5, "period": "744h"}`},
			`"a";q=10;w=1, "b";q=3;w=1, "c";q=5;w=2, "d";q=5;w=2678400`},
		{"names with every allowed character", nil, t0, []string{
			`{"name": "Tier-1.burst_2", "algorithm": "token_bucket", "limit": 1, "period": "1h"}`},
			`"Tier-1.burst_2";q=1;w=3600`},
		{"a day, week and month in UTC (nil zone)", nil, t0, []string{
			`{"name": "day", "algorithm": "fixed_window", "limit": 1, "period": "day"}`,
			`{"name": "week", "algorithm": "fixed_window", "limit": 1, "period": "week"}`,
			`{"name": "month", "algorithm": "fixed_window", "limit": 1, "period": "month"}`},
			`"day";q=1;w=86400, "week";q=1;w=604800, "month";q=1;w=2592000`},
		{"New York, clocks go forward (Sunday 2026-03-08)", ny, nyAt(2026, 3, 8, 12), []string{
			`{"name": "day", "algorithm": "fixed_window", "limit": 1, "period": "day"}`,
			`{"name": "week", "algorithm": "fixed_window", "limit": 1, "period": "week"}`,
			`{"name": "month", "algorithm": "fixed_window", "limit": 1, "period": "month"}`},
			`"day";q=1;w=82800, "week";q=1;w=601200, "month";q=1;w=2674800`},
		{"New York, clocks fall back (Sunday 2026-11-01)", ny, nyAt(2026, 11, 1, 12), []string{
			`{"name": "day", "algorithm": "fixed_window", "limit": 1, "period": "day"}`},
			`"day";q=1;w=90000`},
		{"New York, February", ny, nyAt(2026, 2, 14, 12), []string{
			`{"name": "month", "algorithm": "fixed_window", "limit": 1, "period": "month"}`},
			`"month";q=1;w=2419200`},
		{"a concurrency rule has no window", nil, t0, []string{
			`{"name": "inflight", "algorithm": "concurrency", "limit": 4}`,
			`{"name": "minute", "algorithm": "fixed_window", "limit": 60, "period": "1m"}`},
			`"inflight";q=4, "minute";q=60;w=60`},
		{"a change of zone extends the day", moved, t0 + 1, []string{
			`{"name": "day", "algorithm": "fixed_window", "limit": 1, "period": "day"}`},
			`"day";q=1;w=115200`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := mustSet(t, tc.zone, tc.rules...)
			d, err := set.Decide(set.NewStates(), tc.at, 1)
			if err != nil {
				t.Fatal(err)
			}
			h := http.Header{}
			headers.Write(h, set, d, tc.at)
			if got := h.Get("RateLimit-Policy"); got != tc.want {
				t.Errorf("RateLimit-Policy\n got %s\nwant %s", got, tc.want)
			}
			checkSF(t, h)
		})
	}
}

// The daily rule's t counts down to the tenant's midnight across a DST change.
func TestEffectiveWindowCalendar(t *testing.T) {
	ny := mustZone(t, "America/New_York")
	set := mustSet(t, ny, `{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"}`)
	// 01:00 EST on the 23-hour day: midnight comes 22 hours later.
	now := limiter.Micros(time.Date(2026, 3, 8, 1, 0, 0, 0, ny.Location()))
	d, err := set.Decide(set.NewStates(), now, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	headers.Write(h, set, d, now)
	if got, want := h.Get("RateLimit"), `"daily";r=99;t=79200`; got != want {
		t.Errorf("RateLimit %s, want %s", got, want)
	}
	if got, want := h.Get("RateLimit-Policy"), `"daily";q=100;w=82800`; got != want {
		t.Errorf("RateLimit-Policy %s, want %s", got, want)
	}
}

// An allowed leaky-bucket request carries a Delay, which no field renders.
func TestLeakyBucketDelayHasNoField(t *testing.T) {
	set := mustSet(t, nil, `{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 50}`)
	states := set.NewStates()
	var d limiter.Decision
	for range 3 {
		var err error
		if d, err = set.Decide(states, t0, 1); err != nil {
			t.Fatal(err)
		}
	}
	if d.Delay != 200_000 {
		t.Fatalf("Delay %d, want 200ms", d.Delay)
	}
	h := http.Header{}
	headers.Write(h, set, d, t0)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	})
	want := []string{"Ratelimit", "Ratelimit-Policy", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"}
	if !slices.Equal(keys, want) {
		t.Errorf("fields %v, want %v", keys, want)
	}
	if got, want := read(h), (fields{limit: "50", remaining: "47", reset: sec(1),
		policy: `"leaky_bucket";q=10;w=1;edgelimit-burst=50`, rateLimit: `"leaky_bucket";r=47;t=1`}); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestWriteReplacesOnlyItsFields(t *testing.T) {
	set := mustSet(t, nil, `{"name": "m", "algorithm": "fixed_window", "limit": 100, "period": "1m"}`)
	d, err := set.Decide(set.NewStates(), t0, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "stale")
	h.Add("RateLimit", `"other";r=1`)
	h.Set("Retry-After", "120") // set by someone else; an allowed decision leaves it
	h.Set("Content-Type", "text/plain")
	headers.Write(h, set, d, t0)
	if got := h.Values("X-RateLimit-Limit"); !slices.Equal(got, []string{"100"}) {
		t.Errorf("X-RateLimit-Limit %q, want [100]", got)
	}
	if got := h.Values("RateLimit"); !slices.Equal(got, []string{`"m";r=99;t=60`}) {
		t.Errorf("RateLimit %q", got)
	}
	if h.Get("Retry-After") != "120" || h.Get("Content-Type") != "text/plain" {
		t.Errorf("other fields changed: %v", h)
	}
	// Values share one string; adding to one field must not write into the next.
	h.Add("X-RateLimit-Limit", "extra")
	if got := h.Get("X-RateLimit-Remaining"); got != "99" {
		t.Errorf("X-RateLimit-Remaining %q after Add to the limit, want 99", got)
	}
}

// A Decision whose Rule is not a rule of the set (a caller's bug) renders without the
// RateLimit item instead of panicking.
func TestForeignRuleIndex(t *testing.T) {
	set := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 10, "period": "1m"}`)
	for _, i := range []int{-1, 1, 7} {
		d := limiter.Decision{Rule: i, Limit: 10, Reset: t0, RetryAfter: 1}
		h := http.Header{}
		headers.Write(h, set, d, t0)
		if h.Get("RateLimit") != "" || h.Get("RateLimit-Policy") == "" || h.Get("Retry-After") != "1" {
			t.Errorf("rule %d: %v", i, h)
		}
		if body := headers.NewDenial(set, d, t0); body.Rule != "" {
			t.Errorf("rule %d: body rule %q", i, body.Rule)
		}
	}
}

func TestEightLongNames(t *testing.T) {
	// The largest policy: 8 rules with 64-byte names and 7-digit parameters, beyond
	// Write's stack buffer.
	rules := make([]string, limiter.MaxRules)
	want := ""
	for i := range rules {
		name := fmt.Sprintf("%c%063d", 'a'+i, i)
		rules[i] = fmt.Sprintf(`{"name": %q, "algorithm": "token_bucket", "limit": 999999, "period": "744h", "burst": 1000000}`, name)
		if i > 0 {
			want += ", "
		}
		want += fmt.Sprintf(`"%s";q=999999;w=2678400;edgelimit-burst=1000000`, name)
	}
	set := mustSet(t, nil, rules...)
	d, err := set.Decide(set.NewStates(), t0, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	headers.Write(h, set, d, t0)
	if got := h.Get("RateLimit-Policy"); got != want {
		t.Errorf("RateLimit-Policy\n got %s\nwant %s", got, want)
	}
	checkSF(t, h)
}

// A request decided over several counters lists the policies of every counter, each
// rule of scope key or ip with its scope; the other fields describe the reported one.
func TestWritePoliciesOfEveryScope(t *testing.T) {
	route := mustSet(t, nil, `{"name": "orders", "algorithm": "sliding_window", "limit": 30, "period": "1m", "scope": "tenant"}`)
	tenantWide := mustSet(t, nil, `{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "24h", "scope": "tenant"}`)
	perKey := mustSet(t, nil, `{"name": "burst", "algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 20, "scope": "key"}`)
	perIP := mustSet(t, nil, `{"name": "ip", "algorithm": "fixed_window", "limit": 100, "period": "1m", "scope": "ip"}`)
	d := limiter.Decision{Allowed: true, Rule: 0, Limit: 20, Remaining: 19, Reset: t0 + 100_000, RuleReset: t0 + 100_000}
	h := http.Header{}
	headers.Write(h, perKey, d, t0, route, tenantWide, perKey, perIP)
	want := `"orders";q=30;w=60, "daily";q=10000;w=86400, "burst";q=10;w=1;edgelimit-burst=20;edgelimit-scope=key, "ip";q=100;w=60;edgelimit-scope=ip`
	if got := h.Get("RateLimit-Policy"); got != want {
		t.Errorf("RateLimit-Policy\n got %s\nwant %s", got, want)
	}
	if got := h.Get("RateLimit"); got != `"burst";r=19;t=1` {
		t.Errorf("RateLimit %s", got)
	}
	if got := h.Get("X-RateLimit-Limit"); got != "20" {
		t.Errorf("X-RateLimit-Limit %s", got)
	}
}
