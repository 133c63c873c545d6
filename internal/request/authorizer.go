package request

import (
	"errors"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

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
