package request

import (
	"encoding/json"
	"reflect"
	"strings"
)

// The key members are what an EventDecoder decodes a headers object into: a struct,
// made with reflect.StructOf for the key header, of two members. Exact is tagged with
// the header's name; Other, first, with another spelling of it, so that encoding/json,
// which prefers the member of the exact name and else takes the first whose name
// matches whatever the case, decodes every other spelling into Other. The other headers
// match no member and are skipped: no string or map entry is built for them.
//
// singleKeys are those of the single-value headers, members of type *textMember
// (encoding/json unquotes the value, and a null sets the member to nil); multiKeys those
// of multiValueHeaders, of type multiMember (a list, decoded by encoding/json).
type (
	singleKeys struct {
		ptr          any           // the *struct{Other, Exact *textMember}
		other, exact **textMember  // its members
		members      [2]textMember // what they point to (Other's, Exact's) until a null
	}
	multiKeys struct {
		ptr          any // the *struct{Other, Exact multiMember}
		other, exact *multiMember
	}
)

// otherSpelling returns a spelling of name other than name that matches it whatever
// the case, or false when it has none (no letters).
func otherSpelling(name string) (string, bool) {
	other := strings.ToUpper(name)
	if other == name {
		other = strings.ToLower(name)
	}
	return other, other != name && strings.EqualFold(other, name)
}

// keyStruct returns a new struct{Other, Exact T}, Other tagged other and Exact name.
func keyStruct(t reflect.Type, name, other string) reflect.Value {
	return reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "Other", Type: t, Tag: reflect.StructTag(`json:"` + other + `"`)},
		{Name: "Exact", Type: t, Tag: reflect.StructTag(`json:"` + name + `"`)},
	}))
}

func newSingleKeys(name, other string) *singleKeys {
	p := keyStruct(reflect.TypeFor[*textMember](), name, other)
	k := &singleKeys{ptr: p.Interface(), other: p.Elem().Field(0).Addr().Interface().(**textMember),
		exact: p.Elem().Field(1).Addr().Interface().(**textMember)}
	k.reset()
	return k
}

func newMultiKeys(name, other string) *multiKeys {
	p := keyStruct(reflect.TypeFor[multiMember](), name, other)
	return &multiKeys{ptr: p.Interface(), other: p.Elem().Field(0).Addr().Interface().(*multiMember),
		exact: p.Elem().Field(1).Addr().Interface().(*multiMember)}
}

// reset empties k for the next decode.
func (k *singleKeys) reset() {
	k.members = [2]textMember{}
	*k.other, *k.exact = &k.members[0], &k.members[1]
}

// reset empties k for the next decode, keeping the lists' storage.
func (k *multiKeys) reset() { k.other.reset(); k.exact.reset() }

// found returns the value Header reads of the members (false: none), and false when
// it cannot tell: after a null, or when pick cannot.
func (k *singleKeys) found() (v string, found, ok bool) {
	if *k.other != &k.members[0] || *k.exact != &k.members[1] {
		return "", false, false // a null: Header reads it as "", this cannot tell which
	}
	i, ok := pick(k.members[1].count, k.members[0].count)
	if i < 0 {
		return "", false, ok
	}
	return k.members[i].value, true, true
}

// found returns the list Header reads of the members (nil: none), and false when it
// cannot tell (pick).
func (k *multiKeys) found() (*multiMember, bool) {
	i, ok := pick(k.exact.count, k.other.count)
	if i < 0 {
		return nil, ok
	}
	return [2]*multiMember{k.other, k.exact}[i], true
}

// pick returns which member Header reads of a struct whose Exact came exact times and
// Other other times: 1 (Exact) when it came, else 0 (Other) when it came once, else -1
// (none); and false when it cannot tell, for Other came more than once, in spellings
// that Header orders by how they are spelt.
func pick(exact, other int) (int, bool) {
	switch {
	case exact > 0:
		return 1, true
	case other == 1:
		return 0, true
	}
	return -1, other == 0
}

// textMember is a member of the single-value headers: its value (the last one when the
// member is repeated, as in a map) and how many times it came.
type textMember struct {
	value string
	count int
}

// UnmarshalText takes the value of a string member, unquoted by encoding/json.
func (m *textMember) UnmarshalText(b []byte) error {
	m.value = string(b)
	m.count++
	return nil
}

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

func (m *multiMember) reset() { m.values, m.count = m.values[:0], 0 }

// keyHeaders are the key members of the two headers objects of an event.
type keyHeaders struct {
	single *singleKeys
	multi  *multiKeys
}

// matches reports whether encoding/json decodes name into Exact and other into Other,
// in both structs: not when a tag is not valid for it (a name with a character no tag
// holds), for it then uses the members' Go names.
func (h *keyHeaders) matches(name, other string) bool {
	probe := func(v any) []byte { b, _ := json.Marshal(map[string]any{name: v, other: v}); return b }
	err := json.Unmarshal(probe("v"), h.single.ptr)
	_, _, ok := h.single.found()
	ok = ok && err == nil && h.single.members[0].count == 1 && h.single.members[1].count == 1
	err = json.Unmarshal(probe([]string{}), h.multi.ptr)
	ok = ok && err == nil && h.multi.other.count == 1 && h.multi.exact.count == 1
	h.reset()
	return ok
}

func (h *keyHeaders) reset() { h.single.reset(); h.multi.reset() }

// key returns what Header returns of the headers decoded into h, singles the event's
// headers member and multis its multiValueHeaders: each h's pointer when its object
// came, or nil. It returns false when it cannot tell (see found), or when a member holds
// anything else (null, then an object that encoding/json decoded into a map).
func (h *keyHeaders) key(singles, multis any) (string, bool) {
	if singles != nil {
		v, found, ok := h.single.found()
		switch {
		case singles != h.single.ptr || !ok:
			return "", false
		case found:
			if v := strings.TrimSpace(v); v != "" {
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
