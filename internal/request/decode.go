package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// eventMembers carries the members of every kind of authorizer event in one struct, so
// that an event is decoded once, whatever its kind: aws-lambda-go's REST REQUEST event
// (embedded), and the members of the HTTP API payload 2.0 event and of the TOKEN event
// (events.APIGatewayCustomAuthorizerRequest) that it lacks.
type eventMembers struct {
	events.APIGatewayCustomAuthorizerRequestTypeRequest
	Version            string `json:"version"`
	RouteArn           string `json:"routeArn"`
	RouteKey           string `json:"routeKey"`
	AuthorizationToken string `json:"authorizationToken"`
	// RequestContext shadows the embedded event's: it holds both kinds' contexts.
	RequestContext eventContext `json:"requestContext"`
}

// eventContext is the request context of either kind: the REST event's, and the HTTP
// API's route key and http description.
type eventContext struct {
	events.APIGatewayCustomAuthorizerRequestTypeRequestContext
	RouteKey string                                               `json:"routeKey"`
	HTTP     events.APIGatewayV2HTTPRequestContextHTTPDescription `json:"http"`
}

// DecodeAuthorizerEvent decodes the JSON of an authorizer event once, with
// encoding/json, into aws-lambda-go's types; tells its kind from its type and version;
// and returns what FromRESTAuthorizer, FromHTTPAuthorizer or FromTokenAuthorizer reads
// of it. encoding/json's rules apply throughout: member names match whatever their
// case, the last of a repeated member wins (two objects merge), null leaves a member as
// it was (a map becomes nil), and a member of any kind's type that holds the wrong JSON
// type is refused, whichever kind the event is.
//
// Errors: a payload that is not JSON, or of the wrong types, "authorizer: malformed
// event: ..." (naming the member, never its value); an event that is neither a REQUEST
// nor a TOKEN authorizer event, or of a payload version other than 1.0 and 2.0, an
// error that says so.
func DecodeAuthorizerEvent(payload []byte, keyHeader string) (AuthorizerEvent, error) {
	var w eventMembers
	if err := json.Unmarshal(payload, &w); err != nil {
		return AuthorizerEvent{}, malformed(err)
	}
	kind, err := kindOf(w.Type, w.Version)
	if err != nil {
		return AuthorizerEvent{}, err
	}
	c := &w.RequestContext
	switch kind {
	case TokenEvent:
		ev := events.APIGatewayCustomAuthorizerRequest{Type: w.Type, AuthorizationToken: w.AuthorizationToken, MethodArn: w.MethodArn}
		return AuthorizerEvent{Kind: TokenEvent, Request: FromTokenAuthorizer(ev), MethodArn: w.MethodArn}, nil
	case HTTPEvent:
		ev := events.APIGatewayV2CustomAuthorizerV2Request{RouteArn: w.RouteArn, RouteKey: w.RouteKey, Headers: w.Headers}
		ev.RequestContext.RouteKey, ev.RequestContext.HTTP = c.RouteKey, c.HTTP
		return AuthorizerEvent{Kind: HTTPEvent, Request: FromHTTPAuthorizer(ev, keyHeader),
			RouteArn: w.RouteArn, RequestID: c.RequestID}, nil
	}
	ev := w.APIGatewayCustomAuthorizerRequestTypeRequest
	ev.RequestContext = c.APIGatewayCustomAuthorizerRequestTypeRequestContext
	req, err := FromRESTAuthorizer(ev, keyHeader)
	return AuthorizerEvent{Kind: RESTEvent, Request: req, MethodArn: w.MethodArn, RequestID: c.RequestID}, err
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
		return fmt.Errorf("authorizer: malformed event: %s has the wrong JSON type (%s)", memberPath(typeErr.Field), typeErr.Value)
	}
	return fmt.Errorf("authorizer: malformed event: %w", err)
}

// memberPath is the JSON path of a decoded field, without the names of the embedded
// aws-lambda-go types that encoding/json puts in it ("requestContext.identity.sourceIp").
func memberPath(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && (p[0] < 'A' || p[0] > 'Z') {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}
