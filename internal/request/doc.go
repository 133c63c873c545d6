// Package request builds the gate.Request of every kind of request edgelimit decides,
// in one place, so that the authorizer, the middleware and `edgelimit dev` identify a
// caller alike:
//
//   - API Gateway authorizer events: REST API (v1) REQUEST (FromRESTAuthorizer), REST
//     API TOKEN (FromTokenAuthorizer: the token is the key, the route the methodArn's,
//     and there is no source IP) and HTTP API payload 2.0 (FromHTTPAuthorizer), for
//     `edgelimit dev` and callers holding a decoded event; and any of them from its raw
//     JSON (DecodeAuthorizerEvent, or an EventDecoder kept for many events:
//     encoding/json decodes it once into one struct of the members read of
//     aws-lambda-go's types, whose type and version tell the kind, and of the headers
//     only the key header's members), for the authorizer function;
//   - Lambda proxy events, for pkg/middleware: REST API v1 (FromRESTProxy), HTTP API
//     payload 2.0 (FromHTTPProxy), function URLs (FromFunctionURL) and ALB targets
//     (FromALB);
//   - net/http requests (FromHTTP), and the REST authorizer event `edgelimit dev` makes
//     of one (RESTAuthorizerEvent), which FromRESTAuthorizer then reads.
//
// Each takes the name of the API key header (gate.Gate.KeyHeader), but for TOKEN
// events whose token is the header's value, and fills Method, Resource (the v1
// resource, the v2 route key, or a path), APIKey and SourceIP.
package request
