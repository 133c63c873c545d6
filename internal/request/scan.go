package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
)

// maxDepth bounds the nesting of objects and arrays, as encoding/json does.
const maxDepth = 10000

// scanner reads one JSON document in a single pass: it checks the syntax of all of it,
// as encoding/json does before it decodes, and lets its caller read the members it
// wants while it skips the rest without decoding them. Its first error sticks: every
// method then does nothing and reports no value.
type scanner struct {
	data  []byte
	pos   int
	depth int
	err   error
}

// text is a JSON string as the document spells it, quotes included.
type text struct {
	raw   []byte // nil: no string was read
	plain bool   // printable ASCII without escapes: the quoted bytes are the string
}

func (t text) set() bool { return t.raw != nil }

// String returns the decoded string ("" when none was read): the bytes themselves when
// plain, else what encoding/json makes of them (escapes, invalid UTF-8).
func (t text) String() string {
	switch {
	case t.raw == nil:
		return ""
	case t.plain:
		return string(t.raw[1 : len(t.raw)-1])
	}
	var s string
	_ = json.Unmarshal(t.raw, &s) // the scanner checked its syntax
	return s
}

// is reports whether t is exactly s.
func (t text) is(s string) bool {
	if t.plain {
		return string(t.raw[1:len(t.raw)-1]) == s
	}
	return t.raw != nil && t.String() == s
}

// fold reports whether t equals s, which is ASCII, under case folding, as
// strings.EqualFold says: between two ASCII strings that is ASCII's case folding.
func (t text) fold(s string) bool {
	if !t.plain {
		return t.raw != nil && strings.EqualFold(t.String(), s)
	}
	b := t.raw[1 : len(t.raw)-1]
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if x, y := b[i]|0x20, s[i]|0x20; b[i] != s[i] && (x != y || x < 'a' || x > 'z') {
			return false
		}
	}
	return true
}

// foldAny is fold for any s.
func (t text) foldAny(s string, ascii bool) bool {
	if ascii {
		return t.fold(s)
	}
	return t.raw != nil && strings.EqualFold(t.String(), s)
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// empty reports whether t decodes to "": an escape or a byte past ASCII decodes to
// something.
func (t text) empty() bool { return len(t.raw) <= 2 }

// blank reports whether t decodes to white space only.
func (t text) blank() bool {
	if t.plain {
		return len(bytes.TrimSpace(t.raw[1:len(t.raw)-1])) == 0
	}
	return t.raw == nil || strings.TrimSpace(t.String()) == ""
}

// decodeAll returns the decoded strings of ts (at most 8), sharing one allocation.
func decodeAll(ts ...text) (out [8]string) {
	n := 0
	for _, t := range ts {
		n += len(t.raw)
	}
	var b strings.Builder
	b.Grow(n)
	var ends [8]int
	for i, t := range ts {
		if t.plain {
			b.Write(t.raw[1 : len(t.raw)-1])
		} else {
			b.WriteString(t.String())
		}
		ends[i] = b.Len()
	}
	all, start := b.String(), 0
	for i := range ts {
		out[i], start = all[start:ends[i]], ends[i]
	}
	return out
}

// less orders two strings by their decoded bytes.
func (t text) less(u text) bool {
	if t.plain && u.plain {
		return bytes.Compare(t.raw, u.raw) < 0 // the same quotes around both
	}
	return t.String() < u.String()
}

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("authorizer: malformed event: offset %d: "+format, append([]any{s.pos}, args...)...)
	}
}

// peek skips white space and returns the next byte, or 0 at the end or after an error.
func (s *scanner) peek() byte {
	for s.err == nil && s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// null consumes a null if one is next.
func (s *scanner) null() bool {
	if s.peek() == 'n' {
		s.literal("null")
		return s.err == nil
	}
	return false
}

// end checks that nothing but white space follows the document.
func (s *scanner) end() {
	if s.peek() != 0 {
		s.fail("%q after the top-level value", s.data[s.pos])
	}
}

// open consumes '{' or '[' (c) and enters it.
func (s *scanner) open(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.pos++
	if s.depth++; s.depth > maxDepth {
		s.fail("nested more than %d deep", maxDepth)
		return false
	}
	return true
}

// object enters the object that is next and reports true; after a null it reports
// false, and after a value of another type, which it skips, false with *bad set.
func (s *scanner) object(bad *bool) bool { return s.container('{', bad) }

// array is object for an array.
func (s *scanner) array(bad *bool) bool { return s.container('[', bad) }

func (s *scanner) container(c byte, bad *bool) bool {
	switch s.peek() {
	case c:
		return s.open(c)
	case 'n':
		s.literal("null")
		return false
	}
	if s.err == nil {
		*bad = true
		s.skip()
	}
	return false
}

// next steps to the next element of the object or array being read (closed by close):
// it consumes the separating comma, or the closing bracket and reports false.
func (s *scanner) next(first *bool, close byte) bool {
	c := s.peek()
	switch {
	case s.err != nil:
		return false
	case c == close:
		s.pos++
		s.depth--
		return false
	case !*first:
		if c != ',' {
			s.fail("want ',' or %q", close)
			return false
		}
		s.pos++
	}
	*first = false
	return true
}

// members enters the object that is next (see object) and yields the name of each of
// its members, the colon consumed: the loop's body reads or skips the member's value.
func (s *scanner) members(bad *bool) iter.Seq[text] {
	return func(yield func(text) bool) {
		if !s.object(bad) {
			return
		}
		for first := true; ; {
			name, ok := s.member(&first)
			if !ok || !yield(name) {
				return
			}
		}
	}
}

// member steps to the next member of the object being read and returns its name, with
// the colon consumed; false at the object's end.
func (s *scanner) member(first *bool) (text, bool) {
	if !s.next(first, '}') {
		return text{}, false
	}
	if s.peek() != '"' {
		s.fail("want a member name")
		return text{}, false
	}
	name := s.str()
	if s.peek() != ':' {
		s.fail("want ':'")
		return text{}, false
	}
	s.pos++
	return name, s.err == nil
}

// str reads the string at pos, which is a '"'.
func (s *scanner) str() text {
	start, plain := s.pos, true
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch c := s.data[s.pos]; {
		case c == '"':
			s.pos++
			return text{raw: s.data[start:s.pos], plain: plain}
		case c < 0x20:
			s.fail("control character in a string")
			return text{}
		case c == '\\':
			plain = false
			s.escape()
		case c >= 0x80:
			plain = false
		}
	}
	s.fail("unterminated string")
	return text{}
}

// escape checks the escape sequence whose backslash is at pos, and leaves pos on its
// last byte.
func (s *scanner) escape() {
	if s.pos+1 >= len(s.data) {
		s.fail("unterminated string")
		return
	}
	s.pos++
	switch s.data[s.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return
	case 'u':
		for range 4 {
			if s.pos++; s.pos >= len(s.data) || !isHex(s.data[s.pos]) {
				s.fail("bad \\u escape")
				return
			}
		}
		return
	}
	s.fail("bad escape")
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// stringValue reads a string, or a null (an unset text). Another value is skipped and
// reported as !ok, so that the caller can name the member whose type is wrong.
func (s *scanner) stringValue() (t text, ok bool) {
	switch s.peek() {
	case '"':
		return s.str(), true
	case 'n':
		s.literal("null")
		return text{}, true
	}
	s.skip()
	return text{}, false
}

// skip reads and discards one value of any kind.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case s.err != nil:
	case c == '"':
		s.str()
	case c == '{':
		s.open('{')
		for first := true; ; {
			if _, ok := s.member(&first); !ok {
				return
			}
			s.skip()
		}
	case c == '[':
		s.open('[')
		for first := true; s.next(&first, ']'); {
			s.skip()
		}
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		s.number()
	case c == 0:
		s.fail("unexpected end of JSON input")
	default:
		s.fail("unexpected %q", c)
	}
}

func (s *scanner) literal(word string) {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		s.fail("want %s", word)
		return
	}
	s.pos += len(word)
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() {
	if s.at('-') {
		s.pos++
	}
	switch {
	case s.at('0'):
		s.pos++
	case s.digits() == 0:
		s.fail("bad number")
		return
	}
	if s.at('.') {
		s.pos++
		if s.digits() == 0 {
			s.fail("bad number")
			return
		}
	}
	if s.at('e') || s.at('E') {
		s.pos++
		if s.at('+') || s.at('-') {
			s.pos++
		}
		if s.digits() == 0 {
			s.fail("bad number")
		}
	}
}

func (s *scanner) at(c byte) bool { return s.pos < len(s.data) && s.data[s.pos] == c }

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}
