package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-lambda-go/events"
)

// eventMembers carries the members that edgelimit reads of every kind of authorizer
// event, in one struct, so that an event is decoded once, whatever its kind: those of
// aws-lambda-go's REST REQUEST event (events.APIGatewayCustomAuthorizerRequestTypeRequest),
// of its HTTP API payload 2.0 event (events.APIGatewayV2CustomAuthorizerV2Request) and
// of its TOKEN event (events.APIGatewayCustomAuthorizerRequest), under the same names.
// encoding/json skips the members it lacks (the path, the query string and path
// parameters, the stage variables, most of the request context) without building them.
// The headers are those types' maps (H map[string]string, M map[string][]string), or,
// for an EventDecoder, the key header's members alone (H and M any, holding keyMembers).
type eventMembers[H, M any] struct {
	Type               string       `json:"type"`
	Version            string       `json:"version"`
	MethodArn          string       `json:"methodArn"`
	RouteArn           string       `json:"routeArn"`
	RouteKey           string       `json:"routeKey"`
	AuthorizationToken string       `json:"authorizationToken"`
	Resource           string       `json:"resource"`
	HTTPMethod         string       `json:"httpMethod"`
	Headers            H            `json:"headers"`
	MultiValueHeaders  M            `json:"multiValueHeaders"`
	RequestContext     eventContext `json:"requestContext"`
}

// mapMembers are the eventMembers of aws-lambda-go's types, headers in maps.
type mapMembers = eventMembers[map[string]string, map[string][]string]

// eventContext is what edgelimit reads of the request context of either kind: the
// REST event's, and the HTTP API's route key and http description.
type eventContext struct {
	RequestID    string `json:"requestId"`
	ResourcePath string `json:"resourcePath"`
	HTTPMethod   string `json:"httpMethod"`
	Identity     struct {
		SourceIP string `json:"sourceIp"`
	} `json:"identity"`
	RouteKey string `json:"routeKey"`
	HTTP     struct {
		Method   string `json:"method"`
		SourceIP string `json:"sourceIp"`
	} `json:"http"`
}

// DecodeAuthorizerEvent decodes the JSON of an authorizer event once, with
// encoding/json, into one struct of the members edgelimit reads of aws-lambda-go's
// types; tells its kind from its type and version; and returns what
// FromRESTAuthorizer, FromHTTPAuthorizer or FromTokenAuthorizer reads of the event
// decoded into its own type. encoding/json's rules apply throughout: member names
// match whatever their case, the last of a repeated member wins (two objects merge),
// null leaves a member as it was (a map becomes nil), and a member that is read (of
// any kind) holding the wrong JSON type is refused, whichever kind the event is.
// Members that are not read are skipped, whatever they hold; of the headers, only the
// key header's members (in any spelling) are read.
//
// Errors: a payload that is not JSON, or whose members read are of the wrong types,
// "authorizer: malformed event: ..." (naming the member, never its value); an event
// that is neither a REQUEST nor a TOKEN authorizer event, or of a payload version other
// than 1.0 and 2.0, an error that says so.
//
// It is NewEventDecoder(keyHeader).Decode(payload): a caller that decodes many events
// keeps the EventDecoder, whose doc names the rare events it decodes a second time.
func DecodeAuthorizerEvent(payload []byte, keyHeader string) (AuthorizerEvent, error) {
	return NewEventDecoder(keyHeader).Decode(payload)
}

// decodeMaps is DecodeAuthorizerEvent with the event's headers decoded into
// aws-lambda-go's maps, which Header reads.
func decodeMaps(payload []byte, keyHeader string) (AuthorizerEvent, error) {
	w := decodeTargets.Get().(*mapMembers)
	defer release(w)
	kind, multi, err := decodeInto(payload, w)
	if err != nil {
		return AuthorizerEvent{}, err
	}
	return eventOf(w, kind, Header(w.Headers, multi, keyHeader)), nil
}

// decodeInto decodes payload into w and returns the event's kind, and the multi-value
// headers its kind reads (none for an HTTP event, whose type has none).
func decodeInto[H, M any](payload []byte, w *eventMembers[H, M]) (EventKind, M, error) {
	var none M
	if err := json.Unmarshal(payload, w); err != nil {
		return 0, none, malformed(err)
	}
	kind, err := kindOf(w.Type, w.Version)
	if err != nil || kind == HTTPEvent {
		return kind, none, err
	}
	return kind, w.MultiValueHeaders, nil
}

// decodeTargets holds the mapMembers decodeMaps decodes into, between decodes, so that
// a decode builds no new struct or header maps: encoding/json decodes an object into
// the map a member already holds, which release empties.
var decodeTargets = sync.Pool{New: func() any { return new(mapMembers) }}

// release empties w, keeping its (emptied) maps, and puts it back in decodeTargets.
// What was read of it (strings) is not in the maps' storage, and stays valid.
func release(w *mapMembers) {
	headers, multi := w.Headers, w.MultiValueHeaders
	clear(headers)
	clear(multi)
	*w = mapMembers{Headers: headers, MultiValueHeaders: multi}
	decodeTargets.Put(w)
}

// eventOf returns the AuthorizerEvent of w, an event of kind whose key header holds key
// (Header of its headers): what FromRESTAuthorizer, FromHTTPAuthorizer or
// FromTokenAuthorizer reads of the event decoded into its own type.
func eventOf[H, M any](w *eventMembers[H, M], kind EventKind, key string) AuthorizerEvent {
	c := &w.RequestContext
	switch kind {
	case TokenEvent:
		ev := events.APIGatewayCustomAuthorizerRequest{Type: w.Type, AuthorizationToken: w.AuthorizationToken, MethodArn: w.MethodArn}
		return AuthorizerEvent{Kind: TokenEvent, Request: FromTokenAuthorizer(ev), MethodArn: w.MethodArn}
	case HTTPEvent:
		ev := events.APIGatewayV2CustomAuthorizerV2Request{RouteArn: w.RouteArn, RouteKey: w.RouteKey}
		ev.RequestContext.RouteKey = c.RouteKey
		ev.RequestContext.HTTP.Method, ev.RequestContext.HTTP.SourceIP = c.HTTP.Method, c.HTTP.SourceIP
		req := FromHTTPAuthorizer(ev, "")
		req.APIKey = key
		return AuthorizerEvent{Kind: HTTPEvent, Request: req, RouteArn: w.RouteArn, RequestID: c.RequestID}
	}
	ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{Type: w.Type, MethodArn: w.MethodArn, Resource: w.Resource, HTTPMethod: w.HTTPMethod}
	ev.RequestContext.RequestID, ev.RequestContext.ResourcePath, ev.RequestContext.HTTPMethod = c.RequestID, c.ResourcePath, c.HTTPMethod
	ev.RequestContext.Identity.SourceIP = c.Identity.SourceIP
	req, _ := FromRESTAuthorizer(ev, "") // its error is a TOKEN event's, which this is not
	req.APIKey = key
	return AuthorizerEvent{Kind: RESTEvent, Request: req, MethodArn: w.MethodArn, RequestID: c.RequestID}
}

// kindOf tells an event's kind from its type and version.
func kindOf(typ, version string) (EventKind, error) {
	switch {
	case typ == "TOKEN":
		return TokenEvent, nil
	case typ != "REQUEST":
		return 0, fmt.Errorf("authorizer: not an API Gateway authorizer event (type %.20q): want a REQUEST or TOKEN authorizer event", typ)
	case version == "2.0":
		return HTTPEvent, nil
	case version == "" || version == "1.0":
		return RESTEvent, nil
	}
	return 0, fmt.Errorf("authorizer: authorizer payload version %.10q is not supported: want 1.0 or 2.0", version)
}

// malformed is the error of a payload encoding/json does not decode. It names the
// member of the wrong type, never its value (which may be a key).
func malformed(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Errorf("authorizer: malformed event: %s has the wrong JSON type (%s)", typeErr.Field, typeErr.Value)
	}
	return fmt.Errorf("authorizer: malformed event: %w", err)
}
