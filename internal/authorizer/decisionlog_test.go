package authorizer

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// times are the lines' time fields, which the two loggers take from their own clocks.
var times = regexp.MustCompile(`^\{"time":"[^"]*",`)

// The default decision line (no Config.Logger) is the line slog's JSON handler writes
// for the same decision, but for the time: for an allowed, a denied, an unauthorized
// and a failed-over decision, and strings that slog escapes (quotes, control
// characters, invalid UTF-8, U+2028) or does not (HTML's <, > and &, non-ASCII).
func TestDecisionLogIsSlogs(t *testing.T) {
	results := []gate.Result{
		{Status: gate.Allowed, TenantID: "demo", Identity: "k:xxh64u27", Route: "GET /hello", Rule: "burst",
			Decision: limiter.Decision{Remaining: 4}, StoreCalls: 1, StoreLatency: 1500 * time.Microsecond, Reason: "allowed"},
		{Status: gate.Denied, TenantID: "acme", Identity: "ip:192.0.2.1", Rule: "daily", Decision: limiter.Decision{Remaining: 0},
			Cached: true, Reason: "over limit", Shadow: true},
		{Status: gate.Unauthorized, Reason: "unknown key"},
		{Status: gate.Denied, FailedClosed: true, ConfigCalls: 2, StoreLatency: 123456 * time.Microsecond,
			Reason: "store: \"upstash\" said\n\tno\x01 <&> \xff \u2028 é"},
	}
	for i, res := range results {
		var fast, slow bytes.Buffer
		h := &Handler{lines: &decisionLog{w: &fast}, metrics: newEMF(io.Discard, "edgelimit")}
		s := &Handler{log: slog.New(slog.NewJSONHandler(&slow, nil)), metrics: newEMF(io.Discard, "edgelimit")}
		elapsed := time.Duration(i) * 2345 * time.Microsecond
		h.observe(context.Background(), &res, elapsed, "c6af9ac6-7b61")
		s.observe(context.Background(), &res, elapsed, "c6af9ac6-7b61")
		got, want := times.ReplaceAllString(fast.String(), "{"), times.ReplaceAllString(slow.String(), "{")
		if got != want || !times.MatchString(fast.String()) {
			t.Errorf("decision %d:\n got %s\nwant %s", i, fast.String(), slow.String())
		}
	}
	var quiet bytes.Buffer
	h := &Handler{lines: &decisionLog{w: &quiet, level: slog.LevelWarn}, metrics: newEMF(io.Discard, "edgelimit")}
	h.observe(context.Background(), &results[0], 0, "id")
	if quiet.Len() != 0 {
		t.Errorf("at level WARN a decision was logged: %s", quiet.String())
	}
}

// The table of the decision line (docs/reference.md) names every field the line holds
// (but the three every slog line has), so that a field added to the line is documented.
func TestREADMEListsTheDecisionLogFields(t *testing.T) {
	readme, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	var line bytes.Buffer
	h := &Handler{lines: &decisionLog{w: &line}, metrics: newEMF(io.Discard, "edgelimit")}
	h.observe(context.Background(), &gate.Result{Status: gate.Allowed}, 0, "id")
	var fields map[string]any
	if err := json.Unmarshal(line.Bytes(), &fields); err != nil {
		t.Fatalf("%v: %s", err, line.String())
	}
	for name := range fields {
		if name == "time" || name == "level" || name == "msg" {
			continue
		}
		if !regexp.MustCompile("(?m)^\\| [^|]*`" + name + "`[^|]*\\|").Match(readme) {
			t.Errorf("docs/reference.md's table of the decision line does not name %q", name)
		}
	}
}
