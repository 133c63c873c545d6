package headers

import "testing"

// Rule names never need escaping (validation keeps them to [A-Za-z0-9_.-]), but the
// String serialization is RFC 9651's whatever it is given.
func TestAppendString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"burst", `"burst"`},
		{"", `""`},
		{`a"b`, `"a\"b"`},
		{`a\b`, `"a\\b"`},
		{"tab\there", `"tab?here"`},
		{"caf\u00e9", `"caf??"`}, // two bytes of UTF-8, each outside a String's range
		{" ~", `" ~"`},           // the ends of the printable range pass as they are
	} {
		if got := string(appendString(nil, tc.in)); got != tc.want {
			t.Errorf("appendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
