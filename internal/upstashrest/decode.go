package upstashrest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"
)

// decodeReply maps a single command's HTTP status and body to its Reply or an error.
func decodeReply(status int, body []byte, name string) (Reply, error) {
	switch status {
	case http.StatusOK:
		return parseOne(body, name)
	case http.StatusUnauthorized:
		return Reply{}, fmt.Errorf("%w: %s", ErrUnauthorized, snippet(body))
	case http.StatusBadRequest:
		if _, err := parseOne(body, name); errors.As(err, new(*CommandError)) {
			return Reply{}, err
		}
	}
	return Reply{}, &StatusError{Command: name, StatusCode: status, Snippet: snippet(body)}
}

// decodeBatch maps the HTTP status and body of a /pipeline or /multi-exec request of
// n commands to their Results, whose CommandErrors the caller names. path labels
// errors.
func decodeBatch(status int, body []byte, path string, n int) ([]Result, error) {
	if status != http.StatusOK {
		_, err := decodeReply(status, body, path[1:])
		return nil, err
	}
	p, err := newParser(body)
	if err != nil {
		return nil, err
	}
	defer p.free()
	if p.data[p.i] == '{' { // the whole batch failed
		_, err := p.envelope(path[1:])
		if err == nil {
			err = malformed("%s: got one result, want an array", path)
		}
		return nil, err
	}
	if p.data[p.i] != '[' {
		return nil, malformed("%s: want an array of %d results, got %s", path, n, p.kind())
	}
	results := make([]Result, 0, n)
	for p.next('[', ']') {
		if len(results) == n {
			return nil, malformed("%s: more than %d results", path, n)
		}
		r, err := p.envelope("")
		var ce *CommandError
		if err != nil && !errors.As(err, &ce) {
			return nil, err // a malformed item makes the whole reply untrustworthy
		}
		results = append(results, Result{Reply: r, Err: err})
	}
	if len(results) != n {
		return nil, malformed("%s: %d results, want %d", path, len(results), n)
	}
	return results, nil
}

// parseOne parses one {"result": ...} or {"error": "..."} body.
func parseOne(body []byte, name string) (Reply, error) {
	p, err := newParser(body)
	if err != nil {
		return Reply{}, err
	}
	defer p.free()
	return p.envelope(name)
}

// parser reads the JSON of a reply, which newParser has checked is valid JSON (so the
// parser only walks it: every token is well formed and complete), into Replies.
type parser struct {
	data  []byte
	i     int
	elems []Reply // the elements of the arrays being read, innermost last
	b64   []byte  // a string's base64 decoding
}

var parsers = sync.Pool{New: func() any { return new(parser) }}

// newParser checks that body is one JSON value and returns a parser at its start.
func newParser(body []byte) (*parser, error) {
	if !json.Valid(body) {
		err := json.Unmarshal(body, new(json.RawMessage)) // says what is wrong, and where
		return nil, malformed("%v in %q", err, snippet(body))
	}
	p := parsers.Get().(*parser)
	p.data, p.i = body, 0
	p.space()
	return p, nil
}

func (p *parser) free() {
	p.data = nil
	if cap(p.b64) > 64<<10 {
		p.b64 = nil
	}
	parsers.Put(p)
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next moves to the next element of the array or object open at p.i (whose brackets
// are open and close), and reports whether there is one.
func (p *parser) next(open, close byte) bool {
	if c := p.data[p.i]; c == open || c == ',' {
		p.i++
		p.space()
	}
	if p.data[p.i] == close {
		p.i++
		p.space()
		return false
	}
	return true
}

// envelope reads one {"result": ...} or {"error": "..."} object into a Reply or a
// *CommandError for command. As with a JSON object decoded into a map, a repeated
// member counts once, the last; error wins over result.
func (p *parser) envelope(command string) (Reply, error) {
	if p.data[p.i] != '{' {
		return Reply{}, malformed("want an object with result or error, got %s", p.kind())
	}
	result, errAt := -1, -1
	for p.next('{', '}') {
		key := p.str()
		p.space()
		p.i++ // ':'
		p.space()
		switch {
		case p.keyIs(key, "result"):
			result = p.i
		case p.keyIs(key, "error"):
			errAt = p.i
		}
		p.skip()
		p.space()
	}
	end := p.i
	defer func() { p.i = end }()
	if errAt >= 0 {
		p.i = errAt
		if p.data[p.i] != '"' {
			return Reply{}, malformed("error is %s, not a string", p.kind())
		}
		return Reply{}, &CommandError{Command: command, Message: p.unquote(p.str())}
	}
	if result < 0 {
		return Reply{}, malformed("object has neither result nor error")
	}
	p.i = result
	return p.value()
}

// value reads a result sent under Upstash-Encoding: base64: null, an integer, a string
// or an array of those.
func (p *parser) value() (Reply, error) {
	switch c := p.data[p.i]; {
	case c == 'n':
		p.i += len("null")
		return Reply{}, nil
	case c == '"':
		return Reply{kind: KindString, s: p.base64(p.str())}, nil
	case c == '[':
		return p.array()
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		p.skip()
		n, err := strconv.ParseInt(string(p.data[start:p.i]), 10, 64)
		if err != nil {
			return Reply{}, malformed("number %s is not an int64", p.data[start:p.i])
		}
		return Reply{kind: KindInt, n: n}, nil
	}
	return Reply{}, malformed("unexpected JSON value: %s", p.kind())
}

// array reads an array of values, gathering its elements at the end of p.elems and
// copying them into a slice of their own.
func (p *parser) array() (Reply, error) {
	base := len(p.elems)
	defer func() {
		clear(p.elems[base:])
		p.elems = p.elems[:base]
	}()
	for p.next('[', ']') {
		r, err := p.value()
		if err != nil {
			return Reply{}, err
		}
		p.elems = append(p.elems, r)
		p.space()
	}
	return Reply{kind: KindArray, a: append([]Reply(nil), p.elems[base:]...)}, nil
}

// str moves past the string at p.i and returns it, quotes included.
func (p *parser) str() []byte {
	start := p.i
	for p.i++; p.data[p.i] != '"'; p.i++ {
		if p.data[p.i] == '\\' {
			p.i++
		}
	}
	p.i++
	return p.data[start:p.i]
}

// keyIs reports whether the JSON string tok says name.
func (p *parser) keyIs(tok []byte, name string) bool {
	if raw := tok[1 : len(tok)-1]; !hasEscapes(raw) {
		return string(raw) == name
	}
	return p.unquote(tok) == name
}

// unquote returns the text of the JSON string tok, as encoding/json decodes it.
func (p *parser) unquote(tok []byte) string {
	raw := tok[1 : len(tok)-1]
	if !hasEscapes(raw) && utf8.Valid(raw) {
		return string(raw)
	}
	var s string
	_ = json.Unmarshal(tok, &s) // valid: newParser checked
	return s
}

// base64 returns the string tok decoded from base64. The status reply "OK" is sent
// as is (the official client special-cases it the same way; "OK" is never valid
// padded base64, so it is unambiguous), and a string that is not valid base64 is
// kept as sent, as the official client does.
func (p *parser) base64(tok []byte) string {
	raw := tok[1 : len(tok)-1]
	if hasEscapes(raw) || !utf8.Valid(raw) {
		return decodeBase64(p.unquote(tok))
	}
	if string(raw) == "OK" {
		return "OK"
	}
	var err error
	if p.b64, err = base64.StdEncoding.AppendDecode(p.b64[:0], raw); err != nil {
		return string(raw)
	}
	return string(p.b64)
}

func decodeBase64(s string) string {
	if s == "OK" {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return string(b)
}

func hasEscapes(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' {
			return true
		}
	}
	return false
}

// skip moves past the value at p.i.
func (p *parser) skip() {
	switch p.data[p.i] {
	case '"':
		p.str()
	case '{', '[':
		for depth := 0; ; {
			switch p.data[p.i] {
			case '"':
				p.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			p.i++
			if depth == 0 {
				return
			}
		}
	default: // a number, true, false or null
		for p.i < len(p.data) {
			switch p.data[p.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return
			}
			p.i++
		}
	}
}

// kind names the JSON value at p.i, for errors.
func (p *parser) kind() string {
	switch c := p.data[p.i]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}
