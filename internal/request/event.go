package request

import (
	"fmt"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// ParseAuthorizerEvent reads the JSON of an authorizer event in one pass: it checks
// the syntax of the whole payload, tells its kind from its type and version, and
// decodes only the members the gate's request, the policy and the log line need,
// skipping the others (headers it does not look for included). What it returns is
// what decoding the payload into aws-lambda-go's event type and calling
// FromRESTAuthorizer or FromHTTPAuthorizer gives, except that the members it skips
// are checked for syntax only, not for their type.
//
// Errors: a TOKEN event gets ErrTokenEvent; a payload that is not JSON, or one whose
// members this reads have the wrong JSON type, "authorizer: malformed event: ..."; an
// event that is not a REQUEST authorizer event, or of a payload version other than
// 1.0 and 2.0, an error that says so.
func ParseAuthorizerEvent(payload []byte, keyHeader string) (AuthorizerEvent, error) {
	s := scanner{data: payload}
	ascii := isASCII(keyHeader)
	w := wireEvent{headers: headerPick{name: keyHeader, ascii: ascii}, multi: headerPick{name: keyHeader, ascii: ascii, multi: true}}
	w.read(&s)
	s.end()
	if s.err != nil {
		return AuthorizerEvent{}, s.err
	}
	kind, err := w.kind()
	if err != nil {
		return AuthorizerEvent{}, err
	}
	if kind == HTTPEvent {
		return w.http()
	}
	return w.rest()
}

// field is a string member: the last string it held, and whether it held another type.
type field struct {
	t   text
	bad bool
}

func (f *field) read(s *scanner) {
	t, ok := s.stringValue()
	switch {
	case !ok:
		f.bad = true
	case t.set(): // null leaves a string as it was, as encoding/json does
		f.t = t
	}
}

// wireEvent holds the members of either event that ParseAuthorizerEvent reads. A
// member given twice counts as encoding/json counts it: the last string, the union of
// two objects.
type wireEvent struct {
	typ, version, methodArn, routeArn, httpMethod, resource, routeKey field
	headers, multi                                                    headerPick
	ctx                                                               struct {
		bad                                           bool
		requestID, httpMethod, resourcePath, routeKey field
		identity                                      struct {
			bad      bool
			sourceIP field
		}
		http struct {
			bad              bool
			method, sourceIP field
		}
	}
}

func (w *wireEvent) read(s *scanner) {
	var bad bool
	for name := range s.members(&bad) {
		switch {
		case name.fold("type"):
			w.typ.read(s)
		case name.fold("version"):
			w.version.read(s)
		case name.fold("methodArn"):
			w.methodArn.read(s)
		case name.fold("routeArn"):
			w.routeArn.read(s)
		case name.fold("httpMethod"):
			w.httpMethod.read(s)
		case name.fold("resource"):
			w.resource.read(s)
		case name.fold("routeKey"):
			w.routeKey.read(s)
		case name.fold("headers"):
			w.headers.read(s)
		case name.fold("multiValueHeaders"):
			w.multi.read(s)
		case name.fold("requestContext"):
			w.readContext(s)
		default:
			s.skip()
		}
	}
	if bad {
		s.fail("the event is not a JSON object")
	}
}

// The members read of requestContext.identity (REST) and requestContext.http (HTTP).
var (
	identityMembers = []string{"sourceIp"}
	httpMembers     = []string{"method", "sourceIp"}
)

func (w *wireEvent) readContext(s *scanner) {
	c := &w.ctx
	for name := range s.members(&c.bad) {
		switch {
		case name.fold("requestId"):
			c.requestID.read(s)
		case name.fold("httpMethod"):
			c.httpMethod.read(s)
		case name.fold("resourcePath"):
			c.resourcePath.read(s)
		case name.fold("routeKey"):
			c.routeKey.read(s)
		case name.fold("identity"):
			readStrings(s, &c.identity.bad, identityMembers, &c.identity.sourceIP)
		case name.fold("http"):
			readStrings(s, &c.http.bad, httpMembers, &c.http.method, &c.http.sourceIP)
		default:
			s.skip()
		}
	}
}

// readStrings reads an object of which only the string members names[i] matter,
// into fields[i].
func readStrings(s *scanner, bad *bool, names []string, fields ...*field) {
	for n := range s.members(bad) {
		i := 0
		for i < len(names) && !n.fold(names[i]) {
			i++
		}
		if i < len(names) {
			fields[i].read(s)
		} else {
			s.skip()
		}
	}
}

// kind tells the event's kind from its type and version.
func (w *wireEvent) kind() (EventKind, error) {
	if err := wrongType(member{"type", w.typ.bad}, member{"version", w.version.bad}); err != nil {
		return 0, err
	}
	typ, version := w.typ.t, w.version.t
	switch {
	case typ.is("TOKEN"):
		return 0, ErrTokenEvent
	case !typ.is("REQUEST"):
		return 0, fmt.Errorf("authorizer: not an API Gateway authorizer event (type %.20q): want a REQUEST authorizer event", typ.String())
	case version.is("2.0"):
		return HTTPEvent, nil
	case !version.set() || version.is("") || version.is("1.0"):
		return RESTEvent, nil
	}
	return 0, fmt.Errorf("authorizer: authorizer payload version %.10q is not supported: want 1.0 or 2.0", version.String())
}

// rest is FromRESTAuthorizer of the event.
func (w *wireEvent) rest() (AuthorizerEvent, error) {
	c := &w.ctx
	if err := wrongType(member{"methodArn", w.methodArn.bad}, member{"httpMethod", w.httpMethod.bad},
		member{"resource", w.resource.bad}, member{"headers", w.headers.bad}, member{"multiValueHeaders", w.multi.bad},
		member{"requestContext", c.bad}, member{"requestContext.requestId", c.requestID.bad},
		member{"requestContext.httpMethod", c.httpMethod.bad}, member{"requestContext.resourcePath", c.resourcePath.bad},
		member{"requestContext.identity", c.identity.bad}, member{"requestContext.identity.sourceIp", c.identity.sourceIP.bad},
	); err != nil {
		return AuthorizerEvent{}, err
	}
	method, resource := w.httpMethod.t, w.resource.t
	if method.empty() {
		method = c.httpMethod.t
	}
	if resource.empty() {
		resource = c.resourcePath.t
	}
	d := decodeAll(method, resource, keyOf(&w.headers, &w.multi), c.identity.sourceIP.t, w.methodArn.t, c.requestID.t)
	return AuthorizerEvent{Kind: RESTEvent, MethodArn: d[4], RequestID: d[5],
		Request: gate.Request{Method: d[0], Resource: d[1], APIKey: strings.TrimSpace(d[2]), SourceIP: d[3]}}, nil
}

// http is FromHTTPAuthorizer of the event.
func (w *wireEvent) http() (AuthorizerEvent, error) {
	c := &w.ctx
	if err := wrongType(member{"routeArn", w.routeArn.bad}, member{"routeKey", w.routeKey.bad},
		member{"headers", w.headers.bad}, member{"requestContext", c.bad},
		member{"requestContext.requestId", c.requestID.bad}, member{"requestContext.routeKey", c.routeKey.bad},
		member{"requestContext.http", c.http.bad}, member{"requestContext.http.method", c.http.method.bad},
		member{"requestContext.http.sourceIp", c.http.sourceIP.bad},
	); err != nil {
		return AuthorizerEvent{}, err
	}
	routeKey := w.routeKey.t
	if routeKey.empty() {
		routeKey = c.routeKey.t
	}
	d := decodeAll(c.http.method.t, routeKey, keyOf(&w.headers, nil), c.http.sourceIP.t, w.routeArn.t, c.requestID.t)
	return AuthorizerEvent{Kind: HTTPEvent, RouteArn: d[4], RequestID: d[5],
		Request: gate.Request{Method: d[0], Resource: d[1], APIKey: strings.TrimSpace(d[2]), SourceIP: d[3]}}, nil
}

// member is a member's path and whether it held a JSON type its field cannot take.
type member struct {
	path string
	bad  bool
}

func wrongType(members ...member) error {
	for _, m := range members {
		if m.bad {
			return fmt.Errorf("authorizer: malformed event: %s has the wrong JSON type", m.path)
		}
	}
	return nil
}

// headerPick finds one header's value in a JSON object of headers (a map of strings,
// or of lists of strings when multi) by Header's rule, while the scanner reads it.
type headerPick struct {
	name          string
	ascii         bool // name is ASCII
	multi         bool
	bad           bool // a value was not a string (a list of strings)
	exact, folded bool // a member named name; one named name in another case
	exactVal      text // the last value of the member named name
	foldKey       text // the least name of the other spellings, and its last value
	foldVal       text
}

func (p *headerPick) read(s *scanner) {
	var bad bool
	if !s.object(&bad) {
		if bad {
			p.bad = true
		} else if s.err == nil { // null: no headers, whatever came before
			p.exact, p.folded = false, false
		}
		return
	}
	for first := true; ; {
		key, ok := s.member(&first)
		if !ok {
			return
		}
		v, ok := p.value(s)
		switch {
		case !ok:
			p.bad = true
		case key.is(p.name):
			p.exact, p.exactVal = true, v
		case !key.foldAny(p.name, p.ascii):
		case !p.folded || key.less(p.foldKey):
			p.folded, p.foldKey, p.foldVal = true, key, v
		case !p.foldKey.less(key): // the same name again: its last value
			p.foldVal = v
		}
	}
}

// value reads a header's value: a string, or for multi the first of a list of
// strings. A null, or an empty list, is the empty string.
func (p *headerPick) value(s *scanner) (text, bool) {
	if !p.multi {
		return s.stringValue()
	}
	var bad bool
	if !s.array(&bad) {
		return text{}, !bad
	}
	var v text
	ok := true
	for i, first := 0, true; s.next(&first, ']'); i++ {
		t, good := s.stringValue()
		ok = ok && good
		if i == 0 {
			v = t
		}
	}
	return v, ok
}

// pick returns the value Header's rule chooses: the member named name, else the least
// other spelling.
func (p *headerPick) pick() text {
	switch {
	case p.exact:
		return p.exactVal
	case p.folded:
		return p.foldVal
	}
	return text{}
}

// keyOf is Header over the picks of the single-value and multi-value maps, before
// the white space around the value is trimmed.
func keyOf(single, multi *headerPick) text {
	if v := single.pick(); !v.blank() || multi == nil {
		return v
	}
	return multi.pick()
}
