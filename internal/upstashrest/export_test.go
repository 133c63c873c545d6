package upstashrest

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
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
