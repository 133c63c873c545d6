package upstashrest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// testScript is the Script of this package's tests: its source, after the key-locking
// line when asked for it (as pkg/store/upstash's Scripts do).
type testScript string

func (s testScript) Text(keyLocking bool) string {
	if keyLocking {
		return "#!lua flags=allow-key-locking\n" + string(s)
	}
	return string(s)
}

func (s testScript) SHA1(keyLocking bool) string {
	sum := sha1.Sum([]byte(s.Text(keyLocking)))
	return hex.EncodeToString(sum[:])
}

// NewScript returns src as a Script, for tests.
func NewScript(src string) Script { return testScript(src) }

// NewTestTransport returns the transport of the Clients without Config.HTTPClient, for
// tests that change how it dials or which roots it trusts.
func NewTestTransport() *http.Transport { return newTransport() }

// FormatReply prints r for tests' failures: 42, "text", nil, [1 "a"]. It quotes the
// reply's bytes, which errors and logs never do (they use Shape).
func FormatReply(r Reply) string {
	switch r.kind {
	case KindInt:
		return fmt.Sprint(r.n)
	case KindString:
		return fmt.Sprintf("%q", r.s)
	case KindArray:
		elems := make([]string, len(r.a))
		for i, e := range r.a {
			elems[i] = FormatReply(e)
		}
		return "[" + strings.Join(elems, " ") + "]"
	}
	return "nil"
}
