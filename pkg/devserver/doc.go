// Package devserver is the local gateway of `edgelimit dev`: the real authorizer and
// admin handlers in one process, with API Gateway REST API (v1) semantics.
//
// Every request outside /admin/ becomes a REQUEST authorizer event (its resource is the
// request's path, its methodArn a local one) answered by authorizer.Handler.REST:
//
//   - Unauthorized (unknown or missing key, suspended tenant): 401 {"message":"Unauthorized"},
//     as API Gateway answers;
//   - Deny: 429 with the body of template.yaml's ACCESS_DENIED gateway response, and
//     headers from the authorizer's context: Retry-After (the exact retryAfter, where a
//     deployed REST API can only send the template's static fallback), X-RateLimit-Limit,
//     X-RateLimit-Remaining, X-RateLimit-Reset and RateLimit;
//   - Allow: the request goes to the upstream (a reverse proxy), or to a built-in echo
//     that answers with the decision as JSON, with the X-RateLimit-* headers added.
//
// /admin/... is the admin API (pkg/admin) without authentication: serve it on a
// loopback address only.
//
// EnsureDemo prepares the demo tenant and its one demo key, replacing the key an
// earlier start issued (found again through the tenant's metadata).
package devserver
