package request

import (
	"cmp"
	"net"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// FromHTTP returns the gate's request of a net/http request. The route is the
// request's pattern when a ServeMux set one, else its path; the source IP is
// RemoteAddr's host (put a trusted proxy's header there before if needed).
func FromHTTP(r *http.Request, keyHeader string) gate.Request {
	return gate.Request{Method: r.Method, Resource: cmp.Or(r.Pattern, r.URL.Path), APIKey: Header(nil, r.Header, keyHeader), SourceIP: hostOf(r.RemoteAddr)}
}

func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// RESTAuthorizerEvent returns the REQUEST authorizer event a REST API (v1) would send
// for r: its resource is the request's path (`edgelimit dev` then puts the matching
// route template there, internal/devserver), its headers and query parameters the first value of each, its source IP
// RemoteAddr's host, and its methodArn a local one (account 000000000000, API
// edgelimit-dev, stage local).
func RESTAuthorizerEvent(r *http.Request, requestID string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	headers := make(map[string]string, len(r.Header))
	for k, v := range r.Header {
		headers[k] = v[0]
	}
	query := map[string]string{}
	for k, v := range r.URL.Query() {
		query[k] = v[0]
	}
	ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:                  "REQUEST",
		MethodArn:             "arn:aws:execute-api:local:000000000000:edgelimit-dev/local/" + r.Method + r.URL.Path,
		Resource:              r.URL.Path,
		Path:                  r.URL.Path,
		HTTPMethod:            r.Method,
		Headers:               headers,
		QueryStringParameters: query,
	}
	ev.RequestContext.Identity.SourceIP = hostOf(r.RemoteAddr)
	ev.RequestContext.ResourcePath = r.URL.Path
	ev.RequestContext.HTTPMethod = r.Method
	ev.RequestContext.Stage = "local"
	ev.RequestContext.RequestID = requestID
	return ev
}
