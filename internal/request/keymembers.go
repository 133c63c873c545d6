package request

import (
	"encoding/json"
	"reflect"
	"strings"
)

// keyMembers is what an EventDecoder decodes a headers object into: a struct, made
// with reflect.StructOf for the key header, of two members of type M. Exact is tagged
// with the header's name; Other, first, with another spelling of it, so that
// encoding/json, which prefers the member of the exact name and else takes the first
// whose name matches whatever the case, decodes every other spelling into Other. The
// other headers match no member and are skipped: no string or map entry is built for
// them.
type keyMembers[M any, P member[M]] struct {
	ptr          any // the *struct{Other, Exact M}, for the event's headers member
	other, exact P
}

// member is a key member's type: decoded by encoding/json through UnmarshalJSON, it
// counts the times it came, and reset empties it for the next decode.
type member[M any] interface {
	*M
	json.Unmarshaler
	decoded() int
	reset()
}

// otherSpelling returns a spelling of name other than name that matches it whatever
// the case, or false when it has none (no letters).
func otherSpelling(name string) (string, bool) {
	other := strings.ToUpper(name)
	if other == name {
		other = strings.ToLower(name)
	}
	return other, other != name && strings.EqualFold(other, name)
}

// newKeyMembers returns the key members of header name, whose other spelling is
// other (otherSpelling). matches tells whether encoding/json reads them so.
func newKeyMembers[M any, P member[M]](name, other string) keyMembers[M, P] {
	t := reflect.StructOf([]reflect.StructField{
		{Name: "Other", Type: reflect.TypeFor[M](), Tag: reflect.StructTag(`json:"` + other + `"`)},
		{Name: "Exact", Type: reflect.TypeFor[M](), Tag: reflect.StructTag(`json:"` + name + `"`)},
	})
	p := reflect.New(t)
	return keyMembers[M, P]{ptr: p.Interface(), other: p.Elem().Field(0).Addr().Interface().(P),
		exact: p.Elem().Field(1).Addr().Interface().(P)}
}

// matches reports whether encoding/json decodes name into Exact and other into Other:
// not when a tag is not valid for it (a name with a character no tag holds), for it
// then uses the members' Go names.
func (k keyMembers[M, P]) matches(name, other string) bool {
	probe, _ := json.Marshal(map[string]any{name: nil, other: nil}) // always encodes
	err := json.Unmarshal(probe, k.ptr)
	ok := err == nil && k.exact.decoded() == 1 && k.other.decoded() == 1
	k.reset()
	return ok
}

func (k keyMembers[M, P]) reset() { k.exact.reset(); k.other.reset() }

// singleMember is a member of the single-value headers: its value (the last one when
// the member is repeated, as in a map; "" for null), and how many times it came.
type singleMember struct {
	value string
	count int
}

// UnmarshalJSON decodes b, a string or null, with encoding/json.
func (m *singleMember) UnmarshalJSON(b []byte) error {
	m.value = ""
	m.count++
	return json.Unmarshal(b, &m.value)
}

func (m *singleMember) decoded() int { return m.count }
func (m *singleMember) reset()       { *m = singleMember{} }

// multiMember is a member of the multi-value headers: its values (the last list when
// the member is repeated; none for null), and how many times it came.
type multiMember struct {
	values []string // its storage reused from one decode to the next
	count  int
}

// UnmarshalJSON decodes b, a list of strings or null, with encoding/json.
func (m *multiMember) UnmarshalJSON(b []byte) error {
	m.values = m.values[:0]
	m.count++
	return json.Unmarshal(b, &m.values)
}

func (m *multiMember) decoded() int { return m.count }
func (m *multiMember) reset()       { m.values, m.count = m.values[:0], 0 }

// found returns the member Header reads: the exact name's when it came, else the
// other spelling's when one came once, else nil; and false when it cannot tell, for
// other spellings came more than once, which Header orders by how they are spelt.
func (k keyMembers[M, P]) found() (P, bool) {
	switch n := k.other.decoded(); {
	case k.exact.decoded() > 0:
		return k.exact, true
	case n == 1:
		return k.other, true
	case n > 1:
		return nil, false
	}
	return nil, true
}

// keyHeaders are the key members of the two headers objects of an event.
type keyHeaders struct {
	single keyMembers[singleMember, *singleMember]
	multi  keyMembers[multiMember, *multiMember]
}

// key returns what Header returns of the headers decoded into h, singles the event's
// headers member and multis its multiValueHeaders: each h's pointer when its object
// came, or nil. It returns false when it cannot tell (see found), or when a member holds
// anything else (null, then an object that encoding/json decoded into a map).
func (h *keyHeaders) key(singles, multis any) (string, bool) {
	if singles != nil {
		m, ok := h.single.found()
		switch {
		case singles != h.single.ptr || !ok:
			return "", false
		case m != nil:
			if v := strings.TrimSpace(m.value); v != "" {
				return v, true
			}
		}
	}
	if multis != nil {
		m, ok := h.multi.found()
		switch {
		case multis != h.multi.ptr || !ok:
			return "", false
		case m != nil && len(m.values) > 0:
			return strings.TrimSpace(m.values[0]), true
		}
	}
	return "", true
}
