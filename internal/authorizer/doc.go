// Package authorizer answers API Gateway's Lambda authorizer events with the decisions
// of a gate.Gate: the REST API (v1) REQUEST and TOKEN authorizers and the HTTP API (v2)
// payload 2.0 authorizer. Handler.Invoke is the lambda.Handler of the function: it
// decodes the raw event once with encoding/json (request.EventDecoder: one struct of
// the members read of every kind of aws-lambda-go's event types, whose type and
// version tell the kind, and of the headers only the key header's members) and
// encodes the reply, one of aws-lambda-go's response types, with encoding/json, its
// context from a struct of the same keys instead of the type's map. REST, HTTP and
// HTTPIAM take and return those types, decoded, for `edgelimit dev` and other callers;
// Token takes a decoded TOKEN event.
//
// # Answers
//
//   - Allowed (also when failing open, or in shadow mode): REST returns an IAM policy
//     that allows execute-api:Invoke on this request's methodArn; HTTP returns
//     {"isAuthorized": true} (EDGELIMIT_HTTP_API_RESPONSE=simple, the default) or the
//     same IAM policy on the routeArn (iam).
//   - Denied (over a limit, or failing closed): the policy denies execute-api:Invoke on
//     this request's methodArn (routeArn) only, so nothing else is denied should a
//     gateway ever cache it; the simple response is {"isAuthorized": false}. A REST API
//     turns it into 429 with its ACCESS_DENIED gateway response (see template.yaml); an
//     HTTP API answers 403, which it cannot customise.
//   - Unauthorized: the error "Unauthorized", which API Gateway turns into 401.
//
// The policy allows or denies only the method it was asked about. Authorizer caching
// must be off (TTL 0): a cached Allow would skip counting and a cached Deny would
// outlive its Retry-After.
//
// # Context
//
// Every Allow and Deny carries the context keys API Gateway passes on to the
// integration ($context.authorizer.<key> on REST, $context.authorizer.lambda.<key> on
// HTTP), with these JSON types:
//
//	tenantId   string   the tenant ("" when the tenant store failed before it was known)
//	rule       string   the rule reported (the denying rule, or the one with least remaining)
//	limit      number   that rule's capacity
//	remaining  number   what the rule set still admits
//	reset      number   when the rule is back to full, seconds since the epoch, rounded up
//	retryAfter number   seconds to wait, rounded up, at least 1 on a denial; 0 when allowed
//	delayMs    number   the leaky-bucket delay to honour before serving, milliseconds
//	failOpen   boolean  the store failed and the tenant fails open: allowed, uncounted
//	failClosed boolean  the store failed and the tenant fails closed: denied by no limit
//	shadow     boolean  the tenant is in shadow mode (the answer is always Allow)
//	reservation string  an allowed request's reservation id, to settle with its real
//	                    cost (gate.Gate.Settle, POST /admin/reservations/{id}); only
//	                    with a reservation secret, never on a Deny
//
// When failOpen or failClosed is true nothing was counted, and nothing says otherwise:
// rule is "", limit and remaining are 0, and reset is the instant to retry at.
//
// principalId is "<tenant>/<identity>", such as "acme/k:ab12cd34" (the key id, not the
// key) or "public/ip:192.0.2.1", and "unknown" when no tenant is known.
//
// # usageIdentifierKey
//
// The REST response leaves usageIdentifierKey out unless Config.UsageIdentifier is
// UsageAPIKey (EDGELIMIT_USAGE_IDENTIFIER=api-key). API Gateway only reads it for
// methods that require an API key with the API's key source set to AUTHORIZER, and then
// it must equal the value of an API Gateway API key of a usage plan. The key id (8
// characters) can never be one (API Gateway key values have at least 20), and edgelimit
// itself is the limiter, so by default nothing is sent. Deployments that want usage
// plans as a second, coarse layer import the same keys into API Gateway and set
// api-key: the caller's key, which API Gateway has already received in the header, is
// then returned to it. It is never logged.
//
// # TOKEN authorizers
//
// A TOKEN event carries the value of one header (the authorizer's identity source, the
// API key header) and the methodArn, nothing else. Its token is the API key; the route
// is the methodArn's method and path (the request's path: a route whose resource holds
// a path parameter, /pets/{id}, matches no TOKEN request, and only the tenant-wide rules
// apply); the source IP is unknown. So an ip-scope rule counts all the requests of a
// TOKEN authorizer on one counter per rule, the address "unknown"
// (tenant.Caller.Identity): the tenant's callers share it, as under a tenant-scope rule.
// An anonymous route cannot be served: API Gateway answers 401 itself when the token
// is missing, and an empty token is a request without a key and without an address,
// which the gate answers Unauthorized.
//
// # Events this package refuses
//
// Events that are not authorizer events, and REST or TOKEN events without a methodArn
// (or HTTP IAM events without a routeArn), get an error. These are configuration
// errors: API Gateway answers 500. A backend failure is never an error: the gate
// applies the tenant's fail mode.
//
// # Observability
//
// Each decision writes one JSON line, as slog's JSON handler formats it (written
// directly, without slog, unless Config.Logger gives a logger of its own), with the
// tenant, route, rule, status, remaining, latency, store and config round trips,
// fail-open and shadow flags, and the reason, never the key; and one CloudWatch
// Embedded Metric Format
// document on the metrics writer (stdout in Lambda) with the counts Allowed, Denied,
// Unauthorized, FailOpen and FailClosed (Allowed and Denied count the answers, the fail
// mode's among them; FailOpen and FailClosed count those alone) and, when the store was
// called, its StoreLatency in milliseconds, each per TenantId and in total (no
// dimension). CloudWatch Logs turns the document into metrics of the namespace
// "edgelimit" without an API call; template.yaml's dashboard and alarms chart them.
package authorizer
