package admin

import (
	"bytes"
	"encoding/json"
	"errors"
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

// errStop ends the walk: the body has no more tokens, or is malformed JSON, which the
// decoder that follows reports.
var errStop = errors.New("admin: the end of the JSON tokens")

// checkNames is checkStrict with known as the names whose case it enforces.
func checkNames(body []byte, known []string) error {
	w := walker{dec: json.NewDecoder(bytes.NewReader(body)), body: body, known: known}
	w.dec.UseNumber()
	for {
		if err := w.value("", false); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
}

// walker reads the tokens of one JSON document; last is the input offset after the
// previous token, so that body[last:offset] holds the raw bytes of the current one.
type walker struct {
	dec   *json.Decoder
	body  []byte
	last  int64
	known []string // the names of the document's members, in their case
}

// next reads one token and the raw bytes that held it; errStop when there is none.
func (w *walker) next() (json.Token, []byte, error) {
	tok, err := w.dec.Token()
	if err != nil { // io.EOF, or malformed JSON
		return nil, nil, errStop
	}
	raw := w.body[w.last:w.dec.InputOffset()]
	w.last = w.dec.InputOffset()
	return tok, raw, nil
}

// value checks the value at path, an object's names among it (free: they are the
// client's own, as metadata's are), and its strings' UTF-8.
func (w *walker) value(path string, free bool) error {
	tok, raw, err := w.next()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return w.object(path, free)
	case json.Delim('['):
		for i := 0; w.dec.More(); i++ {
			if err := w.value(path+"["+strconv.Itoa(i)+"]", false); err != nil {
				return err
			}
		}
		_, _, err = w.next() // ']'
		return err
	}
	if s, ok := tok.(string); ok && !validString(s, raw) {
		return fieldError(path, "", "is not valid UTF-8: a JSON string must be")
	}
	return nil
}

// object checks the members of the object at path, whose '{' is read: each name once,
// valid UTF-8 and, unless free, in the case of the known name it matches.
func (w *walker) object(path string, free bool) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, raw, err := w.next()
		if err != nil {
			return err
		}
		name, _ := tok.(string) // a member name: the decoder checks the syntax
		member := memberPath(path, free, name)
		switch {
		case !validString(name, raw):
			return fieldError(member, "", "the name is not valid UTF-8: a JSON string must be")
		case seen[name]:
			return fieldError(member, "", "appears twice in one object: each name may appear once")
		case !free && !slices.Contains(w.known, name):
			for _, known := range w.known {
				if strings.EqualFold(known, name) {
					return fieldError(member, "", "unknown field: names are case-sensitive; did you mean "+strconv.Quote(known)+"?")
				}
			}
		}
		seen[name] = true
		if err := w.value(member, path == "" && slices.Contains(freeNames, name)); err != nil {
			return err
		}
	}
	_, _, err := w.next() // '}'
	return err
}

// memberPath is the path of the member name of the object at path: "rules[0].limit",
// or for the client's own names (free) `metadata["team"]`, as the tenant's validation
// names them.
func memberPath(path string, free bool, name string) string {
	switch {
	case free:
		return path + "[" + strconv.QuoteToASCII(name) + "]"
	case path == "":
		return name
	}
	return path + "." + name
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
