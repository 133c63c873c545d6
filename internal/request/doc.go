// Package request builds the gate.Request of every kind of request edgelimit decides,
// in one place, so that the authorizer, the middleware and `edgelimit dev` identify a
// caller alike:
//
//   - API Gateway authorizer events: REST API (v1) REQUEST (FromRESTAuthorizer, which
//     refuses TOKEN events with ErrTokenEvent) and HTTP API payload 2.0
//     (FromHTTPAuthorizer), for `edgelimit dev`; and either from its raw JSON
//     (DecodeAuthorizerEvent: encoding/json decodes it once into one struct of
//     aws-lambda-go's types whose type and version tell the kind), for the authorizer
//     function;
//   - Lambda proxy events, for pkg/middleware: REST API v1 (FromRESTProxy), HTTP API
//     payload 2.0 (FromHTTPProxy), function URLs (FromFunctionURL) and ALB targets
//     (FromALB);
//   - net/http requests (FromHTTP), and the REST authorizer event `edgelimit dev` makes
//     of one (RESTAuthorizerEvent), which FromRESTAuthorizer then reads.
//
// Each takes the name of the API key header (gate.Gate.KeyHeader) and fills Method,
// Resource (the v1 resource, the v2 route key, or a path), APIKey and SourceIP.
package request
