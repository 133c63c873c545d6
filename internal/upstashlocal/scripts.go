package upstashlocal

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"sync"
)

// keyLockingLine is the shebang Upstash accepts and Redis 7 rejects
// ("ERR Unexpected flag in script shebang: allow-key-locking").
const keyLockingLine = "#!lua flags=allow-key-locking"

// stripShebang returns the text Redis may run: a script whose first line is
// exactly keyLockingLine gets that line blanked, its line break kept so that Lua
// error messages name the same line numbers as the source. ok reports a change.
func stripShebang(script string) (runnable string, ok bool) {
	rest, found := strings.CutPrefix(script, keyLockingLine)
	switch {
	case !found:
		return script, false
	case rest == "":
		return "", true
	case rest[0] == '\n':
		return rest, true
	case strings.HasPrefix(rest, "\r\n"):
		return rest[1:], true
	}
	return script, false // another first line, such as "...allow-key-locking,no-writes"
}

// keysCheck is what a script sent with keyLockingLine gets in place of that line (on
// the same line, so Lua's line numbers still match the source): a local redis whose
// call and pcall refuse a command on a key the script did not declare in KEYS, as
// Upstash refuses it under per-key locks. The key of a command is its first argument;
// of DEL, EXISTS, UNLINK, TOUCH and MGET every argument, of MSET every other one;
// TIME, PING, ECHO and DBSIZE have none.
const keysCheck = `local redis = (function(r) ` +
	`local declared, all, pairwise, none = {}, {del=1, exists=1, unlink=1, touch=1, mget=1}, {mset=1, msetnx=1}, {time=1, ping=1, echo=1, dbsize=1} ` +
	`for _, k in ipairs(KEYS) do declared[k] = true end ` +
	`local function check(cmd, ...) local c, n = string.lower(tostring(cmd)), select('#', ...) ` +
	`if none[c] then return end ` +
	`if not (all[c] or pairwise[c]) then n = math.min(n, 1) end ` +
	`for i = 1, n, (pairwise[c] and 2 or 1) do local k = select(i, ...) ` +
	`if not declared[k] then error({err = 'ERR upstash-local: the script touches ' .. tostring(k) .. ', a key it did not declare in KEYS (refused under allow-key-locking, as Upstash refuses it)'}) end end end ` +
	`return setmetatable({call = function(cmd, ...) check(cmd, ...) return r.call(cmd, ...) end, ` +
	`pcall = function(cmd, ...) check(cmd, ...) return r.pcall(cmd, ...) end}, {__index = r}) end)(redis)`

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// scriptNames maps the SHA1 of a script as a client sent it (with the shebang)
// to the SHA1 of the text Redis loaded (without). It only grows; a local server
// sees a handful of scripts. The zero value is ready to use.
type scriptNames struct {
	redisSHA sync.Map // client's SHA1 -> Redis's
}

// runnable returns the text to give Redis for a script a client sent (with
// keyLockingLine: keysCheck in its place), and remembers its name when the two differ.
func (n *scriptNames) runnable(script string) string {
	stripped, ok := stripShebang(script)
	if !ok {
		return script
	}
	stripped = keysCheck + stripped
	n.redisSHA.Store(sha1Hex(script), sha1Hex(stripped))
	return stripped
}

// redisName returns the SHA1 Redis knows for a SHA1 a client sent. An unknown
// SHA1 is returned unchanged, so Redis answers NOSCRIPT itself.
func (n *scriptNames) redisName(sha string) string {
	if r, ok := n.redisSHA.Load(strings.ToLower(sha)); ok {
		return r.(string)
	}
	return sha
}

// rewrite adapts the script commands in place: EVAL, EVAL_RO and SCRIPT LOAD get
// the runnable text; EVALSHA, EVALSHA_RO and SCRIPT EXISTS get Redis's names.
// When the reply must change too (SCRIPT LOAD answers the client's SHA1), fix is
// not nil and maps Redis's reply to the one to send.
func (n *scriptNames) rewrite(args []string) (fix func(any) any) {
	if len(args) < 2 {
		return nil
	}
	switch strings.ToUpper(args[0]) {
	case "EVAL", "EVAL_RO":
		args[1] = n.runnable(args[1])
	case "EVALSHA", "EVALSHA_RO":
		args[1] = n.redisName(args[1])
	case "SCRIPT":
		switch sub := strings.ToUpper(args[1]); {
		case sub == "LOAD" && len(args) == 3:
			client := sha1Hex(args[2])
			args[2] = n.runnable(args[2])
			return func(v any) any {
				if _, ok := v.(string); ok {
					return client
				}
				return v
			}
		case sub == "EXISTS":
			for i := 2; i < len(args); i++ {
				args[i] = n.redisName(args[i])
			}
		}
	}
	return nil
}
