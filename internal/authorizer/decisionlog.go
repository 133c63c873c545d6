package authorizer

import (
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
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

// write writes the line of attrs (decisionAttrs: strings, booleans, integers and
// floats) at Info, unless the level is above Info.
func (l *decisionLog) write(attrs []slog.Attr, now time.Time) {
	if l.level > slog.LevelInfo {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"decision"`...)
	for _, a := range attrs {
		b = append(append(append(b, `,"`...), a.Key...), `":`...)
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			b = append(appendSlogString(append(b, '"'), v.String()), '"')
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		default: // as encoding/json writes the milliseconds this logs ('f': 0, or at least 0.001, and never 1e21)
			b = strconv.AppendFloat(b, v.Float64(), 'f', -1, 64)
		}
	}
	b = append(b, "}\n"...)
	l.buf = b
	_, _ = l.w.Write(b) // stdout: nothing to do if it fails
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
