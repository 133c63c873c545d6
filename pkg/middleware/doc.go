// Package middleware gives a real 429 to APIs that an authorizer cannot give one: HTTP
// APIs (whose Lambda authorizer can only answer 403), Lambda function URLs and ALB
// targets. It decides each request with a gate.Gate before the wrapped handler runs:
//
//   - denied: 429 with Retry-After, X-RateLimit-* and RateLimit headers and a JSON body
//     (internal/headers: the 429 `edgelimit dev` sends too), and the handler is
//     not called;
//   - unknown or missing key, suspended tenant: 401 {"message":"Unauthorized"} with a
//     WWW-Authenticate challenge naming the key's header and the reason, not called;
//   - allowed: the handler runs, and its response gets the rate-limit headers; its
//     status, body and other headers pass through unchanged.
//
// A leaky_bucket rule gives an allowed request a delay, when the bucket's constant
// outflow reaches it. The middleware waits that delay (Config.Sleep, injectable) when it
// is at most Config.MaxDelay, and answers 429 otherwise (or when ctx ends during the
// wait). With a reservation secret, such a request's reservation is settled at cost 0:
// it holds no concurrency slot and its counts are refunded. Without one, the bucket and
// the other rules counted it and a concurrency rule keeps its slot until the lease
// ends: give a leaky bucket a burst of at most MaxDelay x limit/period, and its delays
// never exceed MaxDelay.
//
// With a gate that has a reservation secret, an allowed request's reservation (see
// gate.Reservation) is in the handler's context: ReservationFrom reads it. Once the
// handler returns, or panics (the panic goes on after the settle), the middleware
// settles it at the request's real cost: the one given to SetCost, else the response's
// X-RateLimit-Settle-Cost header (SettleCostHeader), which it removes before the client
// sees the response (net/http: before the headers are written; aws-lambda-go: from the
// response's header maps). With neither (or a header that is not a cost), the estimate
// stands: a request that holds a concurrency slot is settled at its estimate, which
// frees the slot and changes no other counter; one that holds none is not settled, which
// would cost a store call for nothing. Config.OnSettle receives each settle's outcome.
//
// Middleware.Handler wraps a net/http handler; APIGatewayProxy (REST API v1),
// APIGatewayV2 (HTTP API payload 2.0), FunctionURL and ALB wrap aws-lambda-go handlers.
// A gate error (a misconfiguration, not a store failure: the gate applies the tenant's
// fail mode to those) is a 500.
package middleware
