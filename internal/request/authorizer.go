package request

import (
	"errors"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// EventKind is the kind of an API Gateway authorizer event.
type EventKind int

// The authorizer events DecodeAuthorizerEvent reads.
const (
	RESTEvent EventKind = iota + 1 // REST API (v1) REQUEST, or the HTTP API's payload format 1.0
	HTTPEvent                      // HTTP API payload format 2.0
)

// AuthorizerEvent is what edgelimit reads of an authorizer event.
type AuthorizerEvent struct {
	Kind EventKind
	// Request is the gate's request: FromRESTAuthorizer's or FromHTTPAuthorizer's of
	// the same event.
	Request   gate.Request
	MethodArn string // a REST event's methodArn
	RouteArn  string // an HTTP event's routeArn
	RequestID string // requestContext.requestId
}

// ErrTokenEvent is returned for a TOKEN authorizer event.
var ErrTokenEvent = errors.New("authorizer: TOKEN authorizer events carry no headers and no source IP: " +
	"configure a REQUEST authorizer (REST API FunctionPayloadType REQUEST, or an HTTP API Lambda authorizer) " +
	"whose identity source is the API key header")

// FromRESTAuthorizer returns the gate's request of a REST API (v1) REQUEST authorizer
// event (also the HTTP API's payload format 1.0): the method and resource of the event
// or of its request context, the key header from headers or else multiValueHeaders,
// and the identity's source IP. A TOKEN event carries no headers and no source IP: it
// gets ErrTokenEvent.
func FromRESTAuthorizer(ev events.APIGatewayCustomAuthorizerRequestTypeRequest, keyHeader string) (gate.Request, error) {
	if ev.Type == "TOKEN" {
		return gate.Request{}, ErrTokenEvent
	}
	method := ev.HTTPMethod
	if method == "" {
		method = ev.RequestContext.HTTPMethod
	}
	resource := ev.Resource
	if resource == "" {
		resource = ev.RequestContext.ResourcePath
	}
	return gate.Request{Method: method, Resource: resource, APIKey: Header(ev.Headers, ev.MultiValueHeaders, keyHeader),
		SourceIP: ev.RequestContext.Identity.SourceIP}, nil
}

// FromHTTPAuthorizer returns the gate's request of an HTTP API payload 2.0 authorizer
// event: the route key is the resource.
func FromHTTPAuthorizer(ev events.APIGatewayV2CustomAuthorizerV2Request, keyHeader string) gate.Request {
	routeKey := ev.RouteKey
	if routeKey == "" {
		routeKey = ev.RequestContext.RouteKey
	}
	return gate.Request{Method: ev.RequestContext.HTTP.Method, Resource: routeKey,
		APIKey: Header(ev.Headers, nil, keyHeader), SourceIP: ev.RequestContext.HTTP.SourceIP}
}
