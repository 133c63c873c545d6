package upstashrest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Kind is the type of value a Reply holds. The REST API speaks RESP2 in JSON:
// a reply is nil, an integer, a string or an array of replies.
type Kind uint8

const (
	KindNil    Kind = iota // Redis nil: a missing key, a Lua false or nil
	KindInt                // a Redis integer (a Lua number, truncated by Redis)
	KindString             // a bulk or status string, base64-decoded
	KindArray              // an array of replies, possibly nested
)

// kindNames are the kinds' names, by Kind.
var kindNames = [...]string{KindNil: "nil", KindInt: "integer", KindString: "string", KindArray: "array"}

// String names the kind: "nil", "integer", "string" or "array".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Reply is the result of one successful command. Its zero value is a nil reply.
//
// The accessors are checked: each returns an error, never panics, when the reply
// holds another kind of value, so that a script returning something unexpected is
// a backend failure and not a crash. Integers are exact over the whole int64
// range (their digits are parsed with strconv.ParseInt, never through a float64).
type Reply struct {
	kind Kind
	n    int64
	s    string
	a    []Reply
}

// Kind reports the type of value the reply holds.
func (r Reply) Kind() Kind { return r.kind }

// IsNil reports whether the reply is Redis nil.
func (r Reply) IsNil() bool { return r.kind == KindNil }

// Int64 returns an integer reply. A string holding digits is not an integer:
// Redis and Lua integers arrive as integers, so a string here is a bug to report.
func (r Reply) Int64() (int64, error) {
	if r.kind != KindInt {
		return 0, &TypeError{Want: KindInt, Got: r.kind}
	}
	return r.n, nil
}

// String returns a string reply (bytes, possibly not UTF-8).
func (r Reply) String() (string, error) {
	if r.kind != KindString {
		return "", &TypeError{Want: KindString, Got: r.kind}
	}
	return r.s, nil
}

// Array returns the elements of an array reply. The slice is shared: do not modify it.
func (r Reply) Array() ([]Reply, error) {
	if r.kind != KindArray {
		return nil, &TypeError{Want: KindArray, Got: r.kind}
	}
	return r.a, nil
}

// Int64s returns an array reply whose elements are all integers, the usual
// shape of a rate-limit script's answer.
func (r Reply) Int64s() ([]int64, error) {
	elems, err := r.Array()
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(elems))
	for i, e := range elems {
		if out[i], err = e.Int64(); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return out, nil
}

// Shape describes the reply without its bytes, for errors: "nil", "integer",
// "string of 12 bytes", "array of 2 [string of 12 bytes, nil]" (the elements of an
// array of at most 4 are described, one level deep).
func (r Reply) Shape() string {
	switch r.kind {
	case KindString:
		return "string of " + strconv.Itoa(len(r.s)) + " bytes"
	case KindArray:
		s := "array of " + strconv.Itoa(len(r.a))
		if len(r.a) == 0 || len(r.a) > 4 {
			return s
		}
		kinds := make([]string, len(r.a))
		for i, e := range r.a {
			kinds[i] = e.kind.String()
			switch e.kind {
			case KindString:
				kinds[i] = e.Shape()
			case KindArray:
				kinds[i] = "array of " + strconv.Itoa(len(e.a))
			}
		}
		return s + " [" + strings.Join(kinds, ", ") + "]"
	}
	return r.kind.String()
}

// Result is one command's outcome in a pipeline or a transaction: a Reply, or
// Err (a *CommandError) when that command failed and the others may not have.
type Result struct {
	Reply Reply
	Err   error
}

// ErrUnauthorized reports a 401: the token is missing, wrong, or read-only for a write.
var ErrUnauthorized = errors.New("upstash: unauthorized (401): check UPSTASH_REDIS_REST_TOKEN")

// ErrMalformedReply reports a reply the client cannot trust: not JSON, truncated,
// too large, neither a result nor an error, or of a kind the caller did not expect
// (see TypeError). Nothing should be written on the strength of such a reply.
var ErrMalformedReply = errors.New("upstash: malformed reply")

// TypeError reports an accessor called on a reply of another kind, such as Int64
// on a string. It matches ErrMalformedReply with errors.Is.
type TypeError struct {
	Want, Got Kind
}

// Error says which kind was wanted and which came.
func (e *TypeError) Error() string {
	return fmt.Sprintf("upstash: reply is %s, want %s", e.Got, e.Want)
}

// Unwrap makes a TypeError match ErrMalformedReply.
func (e *TypeError) Unwrap() error { return ErrMalformedReply }

// CommandError is an error Redis (or Upstash) returned for a command, sent as
// {"error": "..."}: a syntax error, WRONGTYPE, NOSCRIPT, a Lua error.
type CommandError struct {
	Command string // the command's name, e.g. "EVALSHA"; never its arguments
	Message string // the server's text on one line of at most 200 bytes, e.g. "NOSCRIPT No matching script. Please use EVAL."
}

// Error returns the server's message and the command it answered.
func (e *CommandError) Error() string {
	if e.Command == "" {
		return "upstash: " + e.Message
	}
	return "upstash: " + e.Command + ": " + e.Message
}

// Code returns the error's first word, the Redis error code: "ERR", "WRONGTYPE",
// "NOSCRIPT", "EXECABORT".
func (e *CommandError) Code() string {
	code, _, _ := strings.Cut(e.Message, " ")
	return code
}

// IsNoScript reports whether err is the server's NOSCRIPT error: EVALSHA named a
// script that is not in its cache (the script did not run).
func IsNoScript(err error) bool {
	ce, ok := errors.AsType[*CommandError](err)
	return ok && ce.Code() == "NOSCRIPT"
}

// StatusError reports an HTTP status other than 200, 400 and 401, such as a 500
// or a proxy's HTML error page. Snippet is the server's own error line when the body
// is an Upstash error ({"error": "ERR ..."}), bounded and on one line; for any other
// body it is only the body's length, never its bytes.
type StatusError struct {
	Command    string // the command's name ("EVALSHA"), or "pipeline" or "multi-exec"
	StatusCode int
	Snippet    string
}

// Error gives the command, the status and the Snippet:
// "upstash: EVALSHA: HTTP 429: ERR max requests limit exceeded".
func (e *StatusError) Error() string {
	if e.Command == "" {
		return fmt.Sprintf("upstash: HTTP %d: %s", e.StatusCode, e.Snippet)
	}
	return fmt.Sprintf("upstash: %s: HTTP %d: %s", e.Command, e.StatusCode, e.Snippet)
}

// lineLen bounds the server's error text that errors quote.
const lineLen = 200

// oneLine returns the server's error text s as a short, single-line, valid UTF-8
// prefix for an error message.
func oneLine(s string) string {
	t := strings.ToValidUTF8(s[:min(len(s), lineLen)], "")
	t = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, t)
	t = strings.Join(strings.Fields(t), " ")
	if len(s) > lineLen {
		t += "..."
	}
	return t
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedReply, fmt.Sprintf(format, args...))
}
