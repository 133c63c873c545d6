package upstashrest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Args holds a command's arguments encoded as the REST API takes them, JSON strings,
// as they are appended: the way to pass EvalArgs its keys and arguments without
// boxing each one in an any, as Do and Eval do. The zero value is empty; Reset empties
// it for reuse, keeping its memory. A bad argument (a string that is not valid UTF-8)
// is remembered, and the call it is passed to fails without a request.
//
// An Args is not safe for concurrent use. The client does not keep it once a call
// returns.
type Args struct {
	buf []byte // each argument as ,"..."
	n   int
	err error // the first bad argument
}

// Reset empties a for reuse.
func (a *Args) Reset() { a.buf, a.n, a.err = a.buf[:0], 0, nil }

// Len returns the number of arguments appended.
func (a *Args) Len() int { return a.n }

// AppendString appends s, which must be valid UTF-8.
func (a *Args) AppendString(s string) {
	if !utf8.ValidString(s) {
		a.fail(errNotUTF8)
		return
	}
	a.buf = appendJSONString(append(a.buf, ','), s)
	a.n++
}

// AppendBytes appends b as a string argument; b must be valid UTF-8.
func (a *Args) AppendBytes(b []byte) {
	if !utf8.Valid(b) {
		a.fail(errNotUTF8)
		return
	}
	a.buf = appendJSONString(append(a.buf, ','), b)
	a.n++
}

// AppendInt appends n in decimal.
func (a *Args) AppendInt(n int64) {
	a.buf = appendQuotedInt(append(a.buf, ','), n)
	a.n++
}

// appendAny appends v as Do encodes its arguments.
func (a *Args) appendAny(v any) {
	b, err := appendArg(append(a.buf, ','), v)
	if err != nil {
		a.fail(err)
		return
	}
	a.buf = b
	a.n++
}

func (a *Args) fail(err error) {
	if a.err == nil {
		a.err = fmt.Errorf("%d: %w", a.n, err)
	}
}

var errNotUTF8 = errors.New("not valid UTF-8 (the REST API carries arguments as JSON strings)")

// commandName returns the upper-cased first argument, for error messages.
func commandName(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if s, ok := args[0].(string); ok && len(s) <= 32 {
		return strings.ToUpper(s)
	}
	return ""
}

// appendCommand appends args as the JSON array the REST API takes. Every argument is
// sent as a JSON string, so integers beyond 2^53 stay exact whatever the server's
// JSON parser does with numbers.
func appendCommand(dst []byte, args []any) ([]byte, error) {
	if len(args) == 0 {
		return dst, errors.New("empty command")
	}
	dst = append(dst, '[')
	for i, a := range args {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendArg(dst, a); err != nil {
			return dst, fmt.Errorf("%s argument %d: %w", commandName(args), i, err)
		}
	}
	return append(dst, ']'), nil
}

// appendBatch appends commands as the JSON array of arrays that /pipeline and
// /multi-exec take.
func appendBatch(dst []byte, cmds [][]any) ([]byte, error) {
	dst = append(dst, '[')
	for i, cmd := range cmds {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendCommand(dst, cmd); err != nil {
			return dst, fmt.Errorf("command %d: %w", i, err)
		}
	}
	return append(dst, ']'), nil
}

// appendEval appends the command [verb, script, numkeys, keys..., args...], verb
// being EVALSHA (script its SHA1) or EVAL (script its text).
func appendEval(dst []byte, verb, script string, keys, args *Args) []byte {
	dst = append(append(append(dst, `["`...), verb...), `",`...)
	dst = appendJSONString(dst, script)
	dst = appendQuotedInt(append(dst, ','), int64(keys.n))
	dst = append(append(dst, keys.buf...), args.buf...)
	return append(dst, ']')
}

func appendArg(dst []byte, a any) ([]byte, error) {
	switch v := a.(type) {
	case string:
		if !utf8.ValidString(v) {
			return dst, errNotUTF8
		}
		return appendJSONString(dst, v), nil
	case []byte:
		if !utf8.Valid(v) {
			return dst, errNotUTF8
		}
		return appendJSONString(dst, v), nil
	case int:
		return appendQuotedInt(dst, int64(v)), nil
	case int64:
		return appendQuotedInt(dst, v), nil
	case int32:
		return appendQuotedInt(dst, int64(v)), nil
	case uint64:
		return appendQuotedUint(dst, v), nil
	case uint32:
		return appendQuotedUint(dst, uint64(v)), nil
	case uint:
		return appendQuotedUint(dst, uint64(v)), nil
	case float64:
		return appendFloat(dst, v)
	case float32:
		return appendFloat(dst, float64(v))
	case bool:
		if v {
			return append(dst, `"1"`...), nil
		}
		return append(dst, `"0"`...), nil
	}
	return dst, fmt.Errorf("unsupported type %T", a)
}

func appendQuotedInt(dst []byte, n int64) []byte {
	return append(strconv.AppendInt(append(dst, '"'), n, 10), '"')
}

func appendQuotedUint(dst []byte, n uint64) []byte {
	return append(strconv.AppendUint(append(dst, '"'), n, 10), '"')
}

func appendFloat(dst []byte, f float64) ([]byte, error) {
	switch {
	case math.IsNaN(f):
		return dst, errors.New("NaN")
	case math.IsInf(f, 1):
		return append(dst, `"+inf"`...), nil
	case math.IsInf(f, -1):
		return append(dst, `"-inf"`...), nil
	}
	return append(strconv.AppendFloat(append(dst, '"'), f, 'f', -1, 64), '"'), nil
}

// appendJSONString appends s, valid UTF-8, as a JSON string: quoted, with '"', '\'
// and the control characters escaped (RFC 8259, section 7). Other characters go as
// they are.
func appendJSONString[S string | []byte](dst []byte, s S) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	return append(append(dst, s[start:]...), '"')
}
