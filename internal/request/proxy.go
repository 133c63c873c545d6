package request

import (
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// FromRESTProxy returns the gate's request of a REST API (v1) proxy event; the route
// is the event's resource.
func FromRESTProxy(e events.APIGatewayProxyRequest, keyHeader string) gate.Request {
	return gate.Request{Method: e.HTTPMethod, Resource: e.Resource,
		APIKey: Header(e.Headers, e.MultiValueHeaders, keyHeader), SourceIP: e.RequestContext.Identity.SourceIP}
}

// FromHTTPProxy returns the gate's request of an HTTP API payload 2.0 proxy event; the
// route is the event's route key.
func FromHTTPProxy(e events.APIGatewayV2HTTPRequest, keyHeader string) gate.Request {
	return gate.Request{Method: e.RequestContext.HTTP.Method, Resource: e.RouteKey,
		APIKey: Header(e.Headers, nil, keyHeader), SourceIP: e.RequestContext.HTTP.SourceIP}
}

// FromFunctionURL returns the gate's request of a Lambda function URL event; the route
// is the raw path.
func FromFunctionURL(e events.LambdaFunctionURLRequest, keyHeader string) gate.Request {
	return gate.Request{Method: e.RequestContext.HTTP.Method, Resource: e.RawPath,
		APIKey: Header(e.Headers, nil, keyHeader), SourceIP: e.RequestContext.HTTP.SourceIP}
}

// FromALB returns the gate's request of an Application Load Balancer target event; the
// route is the path and the source IP the last X-Forwarded-For entry (the one the load
// balancer appended).
func FromALB(e events.ALBTargetGroupRequest, keyHeader string) gate.Request {
	return gate.Request{Method: e.HTTPMethod, Resource: e.Path,
		APIKey: Header(e.Headers, e.MultiValueHeaders, keyHeader), SourceIP: lastForwarded(e.Headers, e.MultiValueHeaders)}
}

func lastForwarded(single map[string]string, multi map[string][]string) string {
	list := Header(single, nil, "X-Forwarded-For")
	for k, v := range multi {
		if strings.EqualFold(k, "X-Forwarded-For") && len(v) > 0 {
			list = strings.Join(v, ",")
		}
	}
	return strings.TrimSpace(list[strings.LastIndexByte(list, ',')+1:])
}
