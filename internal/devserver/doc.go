// Package devserver is the local gateway of `edgelimit dev`: the real authorizer and
// admin handlers in one process, with API Gateway REST API (v1) semantics.
//
// Every request outside /admin/ becomes a REQUEST authorizer event (its path and
// methodArn the request's, the methodArn local) answered by authorizer.Handler.REST.
// Its resource (and requestContext.resourcePath) is what a deployed REST API would
// send: the most specific route resource that matches the path ("/items/{id}" for
// /items/42, "/files/{proxy+}" for /files/a/b; a {name} takes one non-empty segment,
// a final {name+} one or more; a literal segment beats a variable at the first segment
// where two differ, and {name} beats {name+}), else the path itself. The resources
// known are those of the routes of every tenant and plan in Config.Tenants, read by
// New and again after each admin write answered 2xx; a route's method plays no part.
// The answers:
//
//   - Unauthorized (unknown or missing key, suspended tenant): 401 {"message":"Unauthorized"},
//     as API Gateway answers, with the middleware's WWW-Authenticate challenge (the key's
//     header and the reason);
//   - Deny: the 429 the middleware sends (internal/headers): Retry-After (the
//     exact one, where a deployed REST API can only send the template's static
//     fallback), X-RateLimit-*, RateLimit-Policy and RateLimit, and the JSON body with
//     numbers as numbers, as in the echo. (A deployed REST API answers with the body of
//     template.yaml's ACCESS_DENIED gateway response instead, which carries the same
//     decision under the authorizer's context names, every value quoted: API Gateway
//     substitutes them as text.)
//   - Allow: the request goes to the upstream (a reverse proxy), or to a built-in echo
//     that answers with the decision as JSON (the authorizer's context), with the
//     rate-limit headers added.
//
// /admin/... is the admin API (internal/admin) without authentication: serve it on a
// loopback address only, behind Guard, which refuses the requests of web pages (a Host
// that is not loopback's, a browser's write from another origin).
//
// EnsureDemo prepares the demo tenant and its one demo key, replacing the key an
// earlier start issued (found again through the tenant's metadata).
package devserver
