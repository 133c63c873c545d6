package request

import "sync"

// EventDecoder decodes authorizer events whose API key is in one header, as
// DecodeAuthorizerEvent does, into one struct whose headers members hold only the key
// header's members (singleKeys, multiKeys): encoding/json skips the other headers
// instead of building a string and a map entry for each. An event it cannot read so (a
// headers member that is null and then an object, the key header null, or the key
// header in two or more spellings other than its own, which Header orders by spelling)
// is decoded a second time, into aws-lambda-go's maps, which Header reads. When
// encoding/json cannot match the key header's name with a struct member (a name with a
// character no tag holds), every event is decoded once, into the maps. The answer is
// the same either way. Create it with NewEventDecoder; it is safe for concurrent use.
type EventDecoder struct {
	keyHeader string
	other     string    // another spelling of keyHeader (otherSpelling)
	keyed     bool      // whether events decode into keyTargets (else into maps)
	targets   sync.Pool // of *keyTarget, reused from one decode to the next
}

// keyTarget is what an EventDecoder decodes an event into.
type keyTarget struct {
	members eventMembers[any, any] // headers: keyHeaders' pointers
	keyHeaders
}

// NewEventDecoder returns the EventDecoder of events whose API key is in header
// keyHeader (gate.Gate.KeyHeader).
func NewEventDecoder(keyHeader string) *EventDecoder {
	d := &EventDecoder{keyHeader: keyHeader}
	other, ok := otherSpelling(keyHeader)
	if !ok {
		return d
	}
	d.other = other
	t := d.newTarget()
	if t.matches(keyHeader, other) {
		d.keyed = true
		d.targets.New = func() any { return d.newTarget() }
		d.targets.Put(t)
	}
	return d
}

func (d *EventDecoder) newTarget() *keyTarget {
	return &keyTarget{keyHeaders: keyHeaders{single: newSingleKeys(d.keyHeader, d.other),
		multi: newMultiKeys(d.keyHeader, d.other)}}
}

// Decode decodes the JSON of an authorizer event: see DecodeAuthorizerEvent.
func (d *EventDecoder) Decode(payload []byte) (AuthorizerEvent, error) {
	if !d.keyed {
		return decodeMaps(payload, d.keyHeader)
	}
	t := d.targets.Get().(*keyTarget)
	defer d.release(t)
	w := &t.members
	w.Headers, w.MultiValueHeaders = t.single.ptr, t.multi.ptr
	kind, multi, err := decodeInto(payload, w)
	if err != nil {
		return AuthorizerEvent{}, err
	}
	key, ok := t.key(w.Headers, multi)
	if !ok && kind != TokenEvent {
		return decodeMaps(payload, d.keyHeader)
	}
	return eventOf(w, kind, key), nil
}

// release empties t, keeping its members' storage, for the next decode.
func (d *EventDecoder) release(t *keyTarget) {
	t.reset()
	t.members = eventMembers[any, any]{}
	d.targets.Put(t)
}
