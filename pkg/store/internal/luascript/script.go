package luascript

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"sync"
)

// KeyLockingShebang is the first line that lets Upstash run a script under
// per-key locks instead of its global script lock. The script must then declare
// in KEYS every key it touches.
const KeyLockingShebang = "#!lua flags=allow-key-locking\n"

// Script is a Lua script run with EVALSHA, falling back to EVAL. It holds the two
// texts a client may send (plain, and with KeyLockingShebang) and their SHA1s,
// computed once, on first use: a package's scripts cost its init nothing (the
// functions start with every store linked, and use one). A Script is immutable and
// safe for concurrent use.
type Script struct {
	src   string
	texts func() [2]scriptText // plain, locked
}

type scriptText struct {
	body string // the text sent with EVAL
	sha  string // its SHA1, hex, sent with EVALSHA
}

func newScriptText(body string) scriptText {
	sum := sha1.Sum([]byte(body))
	return scriptText{body: body, sha: hex.EncodeToString(sum[:])}
}

// NewScript returns a Script for the Lua source src. A source that already
// starts with a shebang ("#!") is sent as written, with or without KeyLocking.
func NewScript(src string) *Script {
	return &Script{src: src, texts: sync.OnceValue(func() [2]scriptText {
		plain := newScriptText(src)
		if strings.HasPrefix(src, "#!") {
			return [2]scriptText{plain, plain}
		}
		return [2]scriptText{plain, newScriptText(KeyLockingShebang + src)}
	})}
}

// Source returns the Lua source given to NewScript.
func (s *Script) Source() string { return s.src }

// Text returns the text sent with EVAL: the source, after KeyLockingShebang when
// keyLocking is set.
func (s *Script) Text(keyLocking bool) string { return s.text(keyLocking).body }

// SHA1 returns the hex SHA1 of Text(keyLocking), the name EVALSHA sends.
func (s *Script) SHA1(keyLocking bool) string { return s.text(keyLocking).sha }

func (s *Script) text(keyLocking bool) scriptText {
	t := s.texts()
	if keyLocking {
		return t[1]
	}
	return t[0]
}
