// Package answer is the HTTP answer to a gate.Result where edgelimit writes the
// response itself: pkg/middleware (net/http and every Lambda event it wraps) and
// `edgelimit dev` (internal/devserver). API Gateway's own answers to the authorizer are
// template.yaml's.
//
//   - Denied: 429 with the rate-limit fields and the JSON body of internal/headers
//     (headers.Denied). Denied builds every 429, also the middleware's for a leaky-bucket
//     delay it will not wait. A 429 of the fail mode (the store failed, the tenant fails
//     closed) carries X-RateLimit-Fail: closed and "fail_closed": true instead of a
//     limit's fields.
//   - Unauthorized: 401 {"message":"Unauthorized"}, as API Gateway answers it.
//   - Allowed: no response of its own (Status 0): Header holds the rate-limit fields to
//     add to the handler's response, or X-RateLimit-Fail: open alone when the fail mode
//     let the request through uncounted.
//
// Internal is the 500 of a gate error (a cost no rule admits: a misconfiguration).
package answer
