package request

import (
	"cmp"
	"errors"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// EventKind is the kind of an API Gateway authorizer event.
type EventKind int

// The authorizer events DecodeAuthorizerEvent reads.
const (
	RESTEvent  EventKind = iota + 1 // REST API (v1) REQUEST, or the HTTP API's payload format 1.0
	HTTPEvent                       // HTTP API payload format 2.0
	TokenEvent                      // REST API (v1) TOKEN
)

// AuthorizerEvent is what edgelimit reads of an authorizer event.
type AuthorizerEvent struct {
	Kind EventKind
	// Request is the gate's request: FromRESTAuthorizer's, FromHTTPAuthorizer's or
	// FromTokenAuthorizer's of the same event.
	Request   gate.Request
	MethodArn string // a REST or TOKEN event's methodArn
	RouteArn  string // an HTTP event's routeArn
	RequestID string // requestContext.requestId
}

// ErrTokenEvent is returned for a TOKEN authorizer event decoded as a REQUEST event,
// whose type has no authorizationToken: FromTokenAuthorizer reads a TOKEN event.
var ErrTokenEvent = errors.New("authorizer: a TOKEN authorizer event is not a REQUEST event: " +
	"decode it as events.APIGatewayCustomAuthorizerRequest (request.FromTokenAuthorizer)")

// FromRESTAuthorizer returns the gate's request of a REST API (v1) REQUEST authorizer
// event (also the HTTP API's payload format 1.0): the method and resource of the event
// or of its request context, the key header from headers or else multiValueHeaders,
// and the identity's source IP. A TOKEN event, whose token this type does not carry,
// gets ErrTokenEvent.
func FromRESTAuthorizer(ev events.APIGatewayCustomAuthorizerRequestTypeRequest, keyHeader string) (gate.Request, error) {
	if ev.Type == "TOKEN" {
		return gate.Request{}, ErrTokenEvent
	}
	return gate.Request{Method: cmp.Or(ev.HTTPMethod, ev.RequestContext.HTTPMethod),
		Resource: cmp.Or(ev.Resource, ev.RequestContext.ResourcePath),
		APIKey:   Header(ev.Headers, ev.MultiValueHeaders, keyHeader), SourceIP: ev.RequestContext.Identity.SourceIP}, nil
}

// FromHTTPAuthorizer returns the gate's request of an HTTP API payload 2.0 authorizer
// event: the route key is the resource.
func FromHTTPAuthorizer(ev events.APIGatewayV2CustomAuthorizerV2Request, keyHeader string) gate.Request {
	return gate.Request{Method: ev.RequestContext.HTTP.Method, Resource: cmp.Or(ev.RouteKey, ev.RequestContext.RouteKey),
		APIKey: Header(ev.Headers, nil, keyHeader), SourceIP: ev.RequestContext.HTTP.SourceIP}
}

// FromTokenAuthorizer returns the gate's request of a REST API (v1) TOKEN authorizer
// event: the token (the value of the authorizer's identity source, the API key header)
// is the API key, white space around it trimmed as Header trims it, and the method and
// resource are those of the methodArn (MethodOfArn). A TOKEN event carries no source
// IP: SourceIP is "" (see docs/design.md, "TOKEN authorizers").
func FromTokenAuthorizer(ev events.APIGatewayCustomAuthorizerRequest) gate.Request {
	method, resource := MethodOfArn(ev.MethodArn)
	return gate.Request{Method: method, Resource: resource, APIKey: strings.TrimSpace(ev.AuthorizationToken)}
}

// MethodOfArn returns the HTTP method and the resource path of a REST API methodArn,
// arn:aws:execute-api:{region}:{account}:{api}/{stage}/{method}/{path}: "GET" and
// "/pets/42" for .../abcdef1234/prod/GET/pets/42, "/" for a method on the root. The
// path is the request's, not the resource's template ({id}). A methodArn of another
// shape gives "", "".
func MethodOfArn(arn string) (method, resource string) {
	i := strings.LastIndexByte(arn, ':')
	if i < 0 || !strings.HasPrefix(arn, "arn:") {
		return "", ""
	}
	parts := strings.SplitN(arn[i+1:], "/", 4)
	if len(parts) < 3 || parts[2] == "" {
		return "", ""
	}
	if len(parts) == 3 {
		return parts[2], "/"
	}
	return parts[2], "/" + parts[3]
}
