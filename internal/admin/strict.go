package admin

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// fieldNames are the JSON names of a tenant's members at every depth (the tenant's,
// its rules', routes' and zone changes'), read from the types' json tags.
var fieldNames = jsonNames(reflect.TypeFor[tenant.Tenant](), nil)

// freeNames are the members whose value is an object of the client's own names
// (metadata), to which the case of fieldNames does not apply.
var freeNames = []string{"metadata"}

// jsonNames adds the json tag names of t's struct fields, and of the structs they hold
// (through slices and pointers), to names.
func jsonNames(t reflect.Type, names []string) []string {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return names
	}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
			names = jsonNames(f.Type, names)
		}
	}
	return names
}

// checkStrict walks a JSON body once, token by token, and refuses what encoding/json
// would take silently: a name twice in one object (it keeps the last), a known name
// in another case ("Rules": it matches names case-insensitively), and a string that is
// not valid UTF-8 (it becomes U+FFFD). Each is a 422 naming the field. Malformed JSON
// passes: the decoder that follows reports it.
func checkStrict(body []byte) error { return checkNames(body, fieldNames) }

// CheckBody answers r with the 422 of checkStrict and returns true when body breaks
// the strict reading of the admin API, with the json names of v's type (at every
// depth) as the known names: for the endpoints that `edgelimit dev` serves beside the
// API, which read their bodies as it does.
func CheckBody(w http.ResponseWriter, r *http.Request, body []byte, v any) bool {
	err := checkNames(body, jsonNames(reflect.TypeOf(v), nil))
	if e, ok := err.(*apiError); ok {
		writeProblem(w, e, r.URL.Path)
		return true
	}
	return false
}

// checkNames is checkStrict with known as the names whose case it enforces.
func checkNames(body []byte, known []string) error {
	w := walker{dec: json.NewDecoder(bytes.NewReader(body)), body: body, known: known}
	w.dec.UseNumber()
	for {
		tok, err := w.dec.Token()
		if err != nil { // io.EOF, or malformed JSON
			return nil
		}
		if err := w.step(tok); err != nil {
			return err
		}
	}
}

// container is an object or array that the walker is in.
type container struct {
	object  bool
	path    string          // "rules[0]"; "" for the body
	wantKey bool            // object: the next string is a member name
	name    string          // object: the member whose value comes next
	index   int             // array: the index of the next element
	seen    map[string]bool // object: the names read so far
	free    bool            // object: its names are the client's own (metadata)
}

// walker follows the tokens of one JSON document; last is the input offset after the
// previous token, so that body[last:offset] holds the raw bytes of the current one.
type walker struct {
	dec   *json.Decoder
	body  []byte
	last  int64
	stack []*container
	known []string // the names of the document's members, in their case
}

func (w *walker) step(tok json.Token) error {
	raw := w.body[w.last:w.dec.InputOffset()]
	w.last = w.dec.InputOffset()
	top := w.top()
	if s, ok := tok.(string); ok && top != nil && top.object && top.wantKey {
		return w.key(top, s, raw)
	}
	switch tok {
	case json.Delim('{'), json.Delim('['):
		c := &container{object: tok == json.Delim('{'), path: w.valuePath(), wantKey: true, seen: map[string]bool{}}
		c.free = top != nil && top.object && top.path == "" && slices.Contains(freeNames, top.name)
		w.stack = append(w.stack, c)
		return nil
	case json.Delim('}'), json.Delim(']'):
		w.stack = w.stack[:len(w.stack)-1]
	default:
		if s, ok := tok.(string); ok && !validString(s, raw) {
			return fieldError(w.valuePath(), "", "is not valid UTF-8: a JSON string must be")
		}
	}
	w.valueDone()
	return nil
}

// key checks a member name: once per object, in the case of the name it matches, and
// valid UTF-8.
func (w *walker) key(c *container, name string, raw []byte) error {
	path := memberPath(c, name)
	switch {
	case !validString(name, raw):
		return fieldError(path, "", "the name is not valid UTF-8: a JSON string must be")
	case c.seen[name]:
		return fieldError(path, "", "appears twice in one object: each name may appear once")
	}
	if !c.free && !slices.Contains(w.known, name) {
		for _, known := range w.known {
			if strings.EqualFold(known, name) {
				return fieldError(path, "", "unknown field: names are case-sensitive; did you mean "+strconv.Quote(known)+"?")
			}
		}
	}
	c.seen[name], c.name, c.wantKey = true, name, false
	return nil
}

// valueDone moves the container on past one value.
func (w *walker) valueDone() {
	if top := w.top(); top != nil {
		top.wantKey = true
		top.index++
	}
}

// valuePath is the path of the value that comes next: a member or an element.
func (w *walker) valuePath() string {
	top := w.top()
	switch {
	case top == nil:
		return ""
	case top.object:
		return memberPath(top, top.name)
	}
	return top.path + "[" + strconv.Itoa(top.index) + "]"
}

func (w *walker) top() *container {
	if len(w.stack) == 0 {
		return nil
	}
	return w.stack[len(w.stack)-1]
}

// memberPath is the path of c's member name: "rules[0].limit", or for the client's
// own names `metadata["team"]`, as the tenant's validation names them.
func memberPath(c *container, name string) string {
	switch {
	case c.free:
		return c.path + "[" + strconv.QuoteToASCII(name) + "]"
	case c.path == "":
		return name
	}
	return c.path + "." + name
}

// validString reports whether s, decoded from raw, was valid: encoding/json turns
// both invalid UTF-8 and an escaped lone surrogate ("\ud800") into U+FFFD, so a U+FFFD
// that raw neither holds nor escapes was one of them.
func validString(s string, raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	return !strings.ContainsRune(s, utf8.RuneError) ||
		bytes.ContainsRune(raw, utf8.RuneError) || bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`))
}
