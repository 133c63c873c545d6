package upstashrest

import (
	"strings"
	"testing"
)

// Eval encodes its keys and arguments as Do does: a bad one fails the call with its
// index, without a request.
func TestEvalRejectsBadArgumentsWithoutARequest(t *testing.T) {
	c, _ := NewClient(Config{URL: "http://127.0.0.1:1", Token: "t"})
	for _, tt := range []struct {
		keys []string
		args []any
		want string
	}{
		{[]string{"\xff"}, nil, "EVALSHA argument 3: not valid UTF-8"},
		{[]string{"k"}, []any{-5, []byte("b"), "\xff"}, "EVALSHA argument 6: not valid UTF-8"},
		{nil, []any{struct{}{}}, "EVALSHA argument 3: unsupported type"},
	} {
		if _, err := c.Eval(t.Context(), NewScript("return 1"), tt.keys, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Eval(%q, %v) = %v, want %q", tt.keys, tt.args, err, tt.want)
		}
	}
	if c.Requests() != 0 {
		t.Errorf("%d requests for bad arguments", c.Requests())
	}
}

// Each Kind prints its name, and a Kind out of range its number.
func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindNil: "nil", KindInt: "integer",
		KindString: "string", KindArray: "array", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind %d prints %q, want %q", k, got, want)
		}
	}
}
