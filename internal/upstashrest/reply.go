package upstashrest

import (
	"errors"
	"fmt"
	"io"
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

// String names the kind: "nil", "integer", "string" or "array".
func (k Kind) String() string {
	switch k {
	case KindNil:
		return "nil"
	case KindInt:
		return "integer"
	case KindString:
		return "string"
	case KindArray:
		return "array"
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

// Bytes returns a string reply as a new byte slice.
func (r Reply) Bytes() ([]byte, error) {
	s, err := r.String()
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
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

// Format prints the reply for humans (test failures, logs): 42, "text", nil, [1 "a"].
func (r Reply) Format(f fmt.State, verb rune) {
	switch r.kind {
	case KindInt:
		fmt.Fprint(f, r.n)
	case KindString:
		fmt.Fprintf(f, "%q", r.s)
	case KindArray:
		io.WriteString(f, "[")
		for i, e := range r.a {
			if i > 0 {
				io.WriteString(f, " ")
			}
			e.Format(f, verb)
		}
		io.WriteString(f, "]")
	default:
		io.WriteString(f, "nil")
	}
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
	Message string // the server's text, e.g. "NOSCRIPT No matching script. Please use EVAL."
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
	if err == nil {
		return false
	}
	var ce *CommandError
	return errors.As(err, &ce) && ce.Code() == "NOSCRIPT"
}

// StatusError reports an HTTP status other than 200, 400 and 401, such as a 500
// or a proxy's HTML error page, with a short, printable snippet of the body.
type StatusError struct {
	Command    string // the command's name ("EVALSHA"), or "pipeline" or "multi-exec"
	StatusCode int
	Snippet    string
}

// Error gives the command, the status and a snippet of the body:
// "upstash: EVALSHA: HTTP 429: ...".
func (e *StatusError) Error() string {
	if e.Command == "" {
		return fmt.Sprintf("upstash: HTTP %d: %s", e.StatusCode, e.Snippet)
	}
	return fmt.Sprintf("upstash: %s: HTTP %d: %s", e.Command, e.StatusCode, e.Snippet)
}

// snippetLen bounds the body text quoted in errors.
const snippetLen = 200

// snippet returns a short, single-line, valid UTF-8 prefix of body for an error message.
func snippet(body []byte) string {
	s := strings.ToValidUTF8(string(body[:min(len(body), snippetLen)]), "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(body) > snippetLen {
		s += "..."
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedReply, fmt.Sprintf(format, args...))
}
