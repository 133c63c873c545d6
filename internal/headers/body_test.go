package headers_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// threeRules is the set of the golden files and the benchmarks: a token bucket with a
// burst, a sliding window, and a daily quota in Tokyo.
func threeRules(tb testing.TB) *limiter.Set {
	return mustSet(tb, mustZone(tb, "Asia/Tokyo"),
		`{"name": "burst", "algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 20}`,
		`{"name": "minute", "algorithm": "sliding_window", "limit": 100, "period": "1m"}`,
		`{"name": "daily", "algorithm": "fixed_window", "limit": 1000, "period": "day"}`)
}

// decideN decides n requests at now on states and returns the last decision.
func decideN(tb testing.TB, set *limiter.Set, states []limiter.State, now int64, n int) limiter.Decision {
	tb.Helper()
	var d limiter.Decision
	for range n {
		var err error
		if d, err = set.Decide(states, now, 1); err != nil {
			tb.Fatal(err)
		}
	}
	return d
}

// The whole 429: status line, every header field, and the body.
func TestWriteDeniedGolden(t *testing.T) {
	set := threeRules(t)
	d := decideN(t, set, set.NewStates(), t0, 21) // the 21st request finds the bucket empty
	if d.Allowed {
		t.Fatal("21st request allowed")
	}
	rec := httptest.NewRecorder()
	headers.WriteDenied(rec, set, d, t0)
	dump, err := httputil.DumpResponse(rec.Result(), true)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "denied.golden", dump)
}

// The header block of an allowed response, as it goes on the wire.
func TestWriteAllowedGolden(t *testing.T) {
	set := threeRules(t)
	states := set.NewStates()
	decideN(t, set, states, t0, 20)
	now := t0 + (90 * time.Second).Microseconds()
	d := decideN(t, set, states, now, 1)
	h := http.Header{}
	headers.Write(h, set, d, now)
	var buf bytes.Buffer
	if err := h.Write(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "allowed.golden", buf.Bytes())
}

func TestBody(t *testing.T) {
	set := mustSet(t, nil,
		`{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}`,
		`{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}`)
	d := decideN(t, set, set.NewStates(), t0, 501)
	got := headers.Body(set, d, t0)
	// The bucket of 500 is empty: one token comes back in 10ms, all of them in 5s.
	want := `{"message":"Too Many Requests","retry_after":1,"limit":500,"remaining":0,"reset":` + sec(5) + `,"rule":"burst","fail_closed":false}`
	if string(got) != want {
		t.Errorf("Body\n got %s\nwant %s", got, want)
	}
	var back headers.Denial
	if err := json.Unmarshal(got, &back); err != nil || back != headers.NewDenial(set, d, t0) {
		t.Errorf("Body does not decode to NewDenial: %+v, %v", back, err)
	}
	// Each member repeats a field.
	h := http.Header{}
	headers.Write(h, set, d, t0)
	f := read(h)
	if f.retryAfter != "1" || f.limit != "500" || f.remaining != "0" || f.reset != sec(5) || f.rateLimit != `"burst";r=0;t=1` {
		t.Errorf("fields %+v disagree with the body", f)
	}
}

func TestWriteDeniedResponse(t *testing.T) {
	set := mustSet(t, nil, `{"name": "m", "algorithm": "fixed_window", "limit": 1, "period": "1m"}`)
	d := decideN(t, set, set.NewStates(), t0+(15*time.Second).Microseconds(), 2)
	rec := httptest.NewRecorder()
	headers.WriteDenied(rec, set, d, t0+(15*time.Second).Microseconds())
	res := rec.Result()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("status %d", res.StatusCode)
	}
	if got := res.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	body := rec.Body.String()
	if want := `{"message":"Too Many Requests","retry_after":45,"limit":1,"remaining":0,"reset":` + sec(60) + `,"rule":"m","fail_closed":false}`; body != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q for %d bytes", got, len(body))
	}
	if got := res.Header.Get("Retry-After"); got != "45" {
		t.Errorf("Retry-After %q", got)
	}
}

// A 429 that no rule set decided (nil: the store failed and the fail mode denied) says
// so, in X-RateLimit-Fail and the body, and pretends no count: no limit, remaining,
// reset or policy fields, 0 and "" in the body. A limit's 429 carries neither mark.
func TestDeniedByTheFailMode(t *testing.T) {
	d := limiter.Decision{Rule: -1, RetryAfter: 1_000_000, Reset: t0 + 1_000_000}
	h := http.Header{}
	var back headers.Denial
	if err := json.Unmarshal(headers.Denied(h, nil, d, t0), &back); err != nil {
		t.Fatal(err)
	}
	if want := (headers.Denial{Message: "Too Many Requests", RetryAfter: 1, Reset: limiter.CeilSeconds(t0) + 1, FailClosed: true}); back != want {
		t.Errorf("body %+v, want %+v", back, want)
	}
	if h.Get("X-RateLimit-Fail") != "closed" || h.Get("Retry-After") != "1" {
		t.Errorf("fields %v: want X-RateLimit-Fail: closed and Retry-After: 1", h)
	}
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"} {
		if v := h.Get(name); v != "" {
			t.Errorf("%s: %q on a 429 that nothing counted", name, v)
		}
	}
	set := mustSet(t, nil, `{"name": "m", "algorithm": "fixed_window", "limit": 1, "period": "1m"}`)
	limited := http.Header{}
	if err := json.Unmarshal(headers.Denied(limited, set, decideN(t, set, set.NewStates(), t0, 2), t0), &back); err != nil || back.FailClosed || limited.Get("X-RateLimit-Fail") != "" {
		t.Errorf("a limit's 429 is marked as the fail mode's: %+v, %v", back, limited)
	}
}
