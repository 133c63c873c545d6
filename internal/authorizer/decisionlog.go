package authorizer

import (
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// decisionLog writes the decision line when no Config.Logger is given: the bytes
// slog's JSON handler writes for observe's record (time, level, msg, then the
// attributes in order), appended to one buffer instead of going through slog's
// record, handler and json.Encoder (for its two floats), which cost a third of the
// warm path. TestDecisionLogIsSlogs holds the two to the same lines.
type decisionLog struct {
	mu    sync.Mutex
	w     io.Writer
	level slog.Level
	buf   []byte
}

// write writes the line of res at Info, unless the level is above Info.
func (l *decisionLog) write(res *gate.Result, elapsed time.Duration, requestID string, now time.Time) {
	if l.level > slog.LevelInfo {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"decision"`...)
	b = logString(b, "request_id", requestID)
	b = logString(b, "tenant", res.TenantID)
	b = logString(b, "identity", res.Identity)
	b = logString(b, "route", res.Route)
	b = logString(b, "rule", res.Rule)
	b = logString(b, "status", res.Status.String())
	b = logBool(b, "allowed", res.Status == gate.Allowed)
	b = logInt(b, "remaining", res.Decision.Remaining)
	b = logInt(b, "retry_after_s", res.RetryAfterSeconds())
	b = logFloat(b, "latency_ms", millis(elapsed))
	b = logFloat(b, "store_latency_ms", millis(res.StoreLatency))
	b = logInt(b, "round_trips", int64(res.StoreCalls))
	b = logInt(b, "config_round_trips", int64(res.ConfigCalls))
	b = logBool(b, "cached", res.Cached)
	b = logBool(b, "fail_open", res.FailOpen)
	b = logBool(b, "failed_closed", res.FailedClosed)
	b = logBool(b, "shadow", res.Shadow)
	b = logString(b, "reason", res.Reason)
	b = append(b, "}\n"...)
	l.buf = b
	_, _ = l.w.Write(b) // stdout: nothing to do if it fails
}

func logKey(b []byte, key string) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	return append(b, `":`...)
}

func logString(b []byte, key, v string) []byte {
	b = append(logKey(b, key), '"')
	return append(appendSlogString(b, v), '"')
}

func logBool(b []byte, key string, v bool) []byte { return strconv.AppendBool(logKey(b, key), v) }

func logInt(b []byte, key string, v int64) []byte { return strconv.AppendInt(logKey(b, key), v, 10) }

// logFloat writes v as encoding/json does, which slog calls for floats: 'f' format
// for the milliseconds this logs (0, or at least 0.001, and never 1e21).
func logFloat(b []byte, key string, v float64) []byte {
	return strconv.AppendFloat(logKey(b, key), v, 'f', -1, 64)
}

// appendSlogString escapes s as slog's JSON handler does: \" \\ \n \r \t, other
// control characters as \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as
// escapes; everything else, HTML's <, > and & included, as it is.
func appendSlogString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		size := 1
		switch r, n := utf8.DecodeRuneInString(s[i:]); {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			size = n
		default:
			b = append(b, s[i:i+n]...)
			size = n
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
