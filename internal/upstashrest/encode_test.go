package upstashrest

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every ASCII character, and some beyond, survive appendJSONString as encoding/json
// reads them back.
func TestAppendJSONStringRoundTrips(t *testing.T) {
	var all strings.Builder
	for c := range 128 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{all.String(), "é, 日本, \u2028, 🙂", "", `"\`} {
		var got string
		enc := appendJSONString(nil, s)
		if err := json.Unmarshal(enc, &got); err != nil || got != s {
			t.Errorf("%q encoded as %s reads back as %q, %v", s, enc, got, err)
		}
	}
}

// Args encodes as Do's arguments do, and a bad argument fails the call with its index.
func TestArgs(t *testing.T) {
	var keys, args Args
	keys.AppendString("k")
	args.AppendInt(-5)
	args.AppendBytes([]byte("b"))
	args.AppendString(`"q"`)
	want, _ := appendCommand(nil, []any{"EVALSHA", "sha", 1, "k", int64(-5), []byte("b"), `"q"`})
	if got := appendEval(nil, "EVALSHA", "sha", &keys, &args); string(got) != string(want) {
		t.Errorf("appendEval = %s, want %s", got, want)
	}
	args.AppendString("\xff")
	c, _ := NewClient(Config{URL: "http://127.0.0.1:1", Token: "t"})
	if _, err := c.EvalArgs(t.Context(), NewScript("return 1"), &keys, &args); err == nil || !strings.Contains(err.Error(), "argument 3: not valid UTF-8") {
		t.Errorf("err = %v, want one for argument 3", err)
	}
	if c.Requests() != 0 {
		t.Errorf("%d requests for a bad argument", c.Requests())
	}
	args.Reset()
	if args.Len() != 0 || args.err != nil || len(args.buf) != 0 {
		t.Errorf("Reset left %+v", args)
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
