// Package devserver is the local gateway of `edgelimit dev`: the real authorizer and
// admin handlers in one process, with API Gateway REST API (v1) semantics.
//
// Every request outside /admin/ becomes a REQUEST authorizer event (its resource is the
// request's path, its methodArn a local one) answered by authorizer.Handler.REST:
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
