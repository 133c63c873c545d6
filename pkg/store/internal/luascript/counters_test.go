package luascript

import (
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestFastPath: bucket.lua takes one bucket rule whose burst x period (microseconds)
// is below 2^52, and nothing else.
func TestFastPath(t *testing.T) {
	for _, tc := range []struct {
		rules []string
		want  bool
	}{
		{[]string{`{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`}, true},
		{[]string{`{"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 5}`}, true},
		{[]string{`{"algorithm": "token_bucket", "limit": 1000000, "period": "1h", "burst": 1000000}`}, true},
		// 744h is 2,678,400,000,000 us: 1,681 of them pass 2^52, 1,680 do not.
		{[]string{`{"algorithm": "token_bucket", "limit": 1000, "period": "744h", "burst": 1680}`}, true},
		{[]string{`{"algorithm": "token_bucket", "limit": 1000, "period": "744h", "burst": 1681}`}, false},
		{[]string{`{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`}, false},
		{[]string{`{"algorithm": "sliding_log", "limit": 10, "period": "1s"}`}, false},
		{[]string{`{"name": "a", "algorithm": "token_bucket", "limit": 10, "period": "1s"}`,
			`{"name": "b", "algorithm": "token_bucket", "limit": 100, "period": "1m"}`}, false},
	} {
		if got := FastPath(storetest.Set(t, nil, tc.rules...)); got != tc.want {
			t.Errorf("FastPath(%v) = %v, want %v", tc.rules, got, tc.want)
		}
	}
}

func TestNewScriptKeepsAnExistingShebang(t *testing.T) {
	src := "#!lua flags=no-writes\nreturn 1"
	s := NewScript(src)
	if s.Text(true) != src || s.SHA1(true) != s.SHA1(false) {
		t.Errorf("Text(true) = %q, want the source unchanged", s.Text(true))
	}
}
