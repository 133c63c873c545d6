package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"0", 0, false},
		{"1700000000", 1_700_000_000_000_000, false},
		{"1700000000.5", 1_700_000_000_500_000, false},
		{"1700000000.1234569", 1_700_000_000_123_456, false}, // truncated, not rounded
		{"1700000000.", 1_700_000_000_000_000, false},
		{"2023-11-14T22:13:20Z", 1_700_000_000_000_000, false},
		{"2023-11-14T23:13:20.25+01:00", 1_700_000_000_250_000, false},
		{"1e9", 0, true},
		{"-1", 0, true},
		{"+1", 0, true},
		{".5", 0, true},
		{"7258118400.000001", 0, true}, // after 2200
		{"1969-12-31T23:59:59Z", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseTime(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseTraceLineNumbers(t *testing.T) {
	_, err := ParseTrace(strings.NewReader("# header\n\n1\n  \n1,a\nx\n"), nil)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 6 {
		t.Fatalf("error %v, want one on line 6", err)
	}
}

// FuzzParseTrace: any input parses or fails with a *LineError; what parses has
// non-decreasing times, costs >= 1, non-empty keys, and survives being written back
// out and parsed again. Seeds are in testdata/fuzz/FuzzParseTrace.
func FuzzParseTrace(f *testing.F) {
	f.Add([]byte("1700000000.5,alice,2\n# c\n2023-11-14T22:13:20Z\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := ParseTrace(bytes.NewReader(data), nil)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error %v is not a LineError", err)
			}
			return
		}
		var out strings.Builder
		for i, r := range reqs {
			if r.Cost < 1 || r.Key == "" || r.At < 0 || r.At > limiter.MaxTime || i > 0 && r.At < reqs[i-1].At {
				t.Fatalf("request %d: %+v", i, r)
			}
			fmt.Fprintf(&out, "%s,%s,%d\n", formatSeconds(r.At), r.Key, r.Cost)
		}
		again, err := ParseTrace(strings.NewReader(out.String()), nil)
		if err != nil {
			t.Fatalf("re-parsing %q: %v", out.String(), err)
		}
		for i := range again {
			again[i].Line = reqs[i].Line
		}
		if !slices.Equal(again, reqs) {
			t.Fatalf("round trip changed the requests: %+v vs %+v", again, reqs)
		}
	})
}
