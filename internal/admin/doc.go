// Package admin is edgelimit's admin API: tenants, their plans, their API keys, their
// usage and resets, over HTTP with JSON. Handler is an http.Handler (for `edgelimit dev`), and
// Invoke, ServeV1 and ServeV2 adapt it to API Gateway proxy events (REST API payload
// 1.0, HTTP API payload 2.0) for the admin Lambda function. docs/openapi.yaml is the
// contract; a test holds the handler to it.
//
// # Routes
//
//	GET    /tenants?limit=&page_token=    {"tenants": [...], "next_page_token": "..." | null}
//	PUT    /tenants/{id}                  create (201; 409 if it exists), or with If-Match replace (200)
//	PATCH  /tenants/{id}                  JSON Merge Patch (application/merge-patch+json), If-Match required
//	GET    /tenants/{id}                  the tenant, ETag "<version>"
//	DELETE /tenants/{id}                  If-Match required; the tenant and its keys (204)
//	POST   /tenants/{id}/keys             a new API key, shown this once (201)
//	GET    /tenants/{id}/keys             the key records: key_id, prefix, created, revoked, revoked_at
//	GET    /tenants/{id}/keys/{keyId}     one key record
//	DELETE /tenants/{id}/keys/{keyId}     revoke (200, the record); ?purge=true removes the record (204)
//	GET    /tenants/{id}/usage?key_id=    each rule's used, remaining and reset for one key (or ?ip=)
//	POST   /tenants/{id}/reset            bump the generation: every counter starts afresh
//	GET    /plans?limit=&page_token=      {"plans": [...], "next_page_token": "..." | null}
//	PUT    /plans/{id}                    create (201; 409 if it exists), or with If-Match replace (200)
//	GET    /plans/{id}                    the plan, ETag "<version>"
//	DELETE /plans/{id}                    If-Match required (204); 409 plan-in-use while a tenant names it
//
// # Plans
//
// A plan holds rules and routes, decoded by tenant.DecodePlan and checked as a
// tenant's (the counter store's RuleChecker included), under a version that is its
// ETag, with the tenants' If-Match rules. A tenant names its plan in "plan": a tenant
// write checks that the plan exists and that its rules merge with the tenant's, with
// its overrides' (every one, ended ones included) and with the own rules of each of its
// keys (tenant.Tenant.CheckMerge), 422 naming the field otherwise; a key issued with
// rules of its own is checked likewise against its tenant (422 naming rules). The
// store checks again
// in the write itself, so a plan deleted meanwhile is refused there. DELETE of a plan
// that a tenant names is 409 plan-in-use, naming one such tenant (the store's check,
// made in the delete). A plan's new rules are not checked against each tenant on it;
// a merge that no longer compiles (more rules than a set holds) meets the tenant's
// fail mode at the authorizer.
//
// # Versions
//
// A tenant's version is its ETag ("3", quotes included). PUT without If-Match creates,
// and answers 409 when the tenant exists; PUT, PATCH and DELETE with If-Match write
// only if it names the stored version (or is "*"), and answer 412 otherwise, also when
// another write wins the race between the read and the conditional write, and 404 when
// the tenant does not exist (If-Match or not). A PUT or PATCH that changes nothing
// writes nothing: 200 with the tenant, its version unchanged. PATCH and DELETE answer
// 428 without If-Match; reset takes it optionally. The body's id, when
// given, must be the path's; version, generation and zone_changes in a body are
// ignored (the server manages them), so a GET body can be edited and sent back. A
// tenant written without rules (a PUT body without them, a patch that removes them)
// gets Config.DefaultRules (EDGELIMIT_DEFAULT_RULES) when there are some, unless it
// names a plan: it then has no rules of its own and gets its plan's. A change of
// time zone is recorded in the tenant's zone history (tenant.ApplyUpdate) and takes
// effect at the first window boundary of the new zone at or after the end of the
// current window: usage says when, per calendar unit.
//
// # Errors
//
// Every error is an RFC 9457 application/problem+json Problem whose type ends in a
// slug (invalid-field, invalid-json, ...), a heading of docs/problems.md that the URI
// opens, and whose field names what was wrong: a path
// into the tenant ("routes[1].rules[0].limit", "timezone"), a query parameter or a
// header. Malformed JSON and bad parameters are 400, invalid fields 422 (unknown
// fields, unknown time zones and bad rules among them, and rules the counter store
// cannot honour: store.RuleChecker, such as a sliding_log above 1000 on DynamoDB), a body over MaxBodyBytes 413, a
// wrong Content-Type 415, an unknown tenant, key or path 404, a method a path does not
// serve 405 with Allow, a failed store 503. A request answered with an error has
// written nothing (a 503 after a lost reply is the exception a store cannot rule out;
// read before retrying).
//
// # Keys
//
// A key is shown once, in the answer to POST /tenants/{id}/keys (which is marked
// Cache-Control: no-store, as are all answers); listings show its key id and prefix,
// never the key and never its hash. Revoking a key stops the tenant store accepting it
// at once; an authorizer instance that cached the key record stops within its
// EDGELIMIT_CONFIG_TTL (default 10s). A revoked key stays listed, and counts towards
// the tenant's store.MaxKeysPerTenant (50; 409 too-many-keys beyond) until
// purged.
//
// # Usage
//
// Counters are per identity: usage takes key_id (a key of the tenant, revoked or not)
// and reports the tenant-wide rules and every route's rules under the counter keys the
// authorizer uses (tenant.Sets.Checks), with that key's own rules in place of the
// key-scope rules they replace (tenant.Tenant.EffectiveFor), read with the counter store's Peek, which
// consumes nothing. ip instead reports what an anonymous client has used: the
// tenant-wide rules and the anonymous routes, with the address limited as the gate
// limits it (IPv4, or the IPv6 /64). For each rule: capacity, used (capacity minus
// remaining), remaining, reset in UTC (a fixed window's end; for other algorithms the
// instant the rule is back to full capacity), and for calendar rules reset_local in
// the tenant's time zone. pending_zone_changes lists, per calendar unit, a change of
// time zone not yet in effect and the instant it takes effect: until then the current
// window runs on under one quota (see limiter.Zone).
//
// # Resets
//
// POST /tenants/{id}/reset bumps the tenant's generation with a conditional Replace:
// every counter key changes, so every counter starts afresh; none is scanned or
// deleted. Usage shows the fresh counters at once; an authorizer instance that cached
// the tenant keeps counting under the old generation until its EDGELIMIT_CONFIG_TTL
// passes.
//
// # Audit trail
//
// Every write that succeeds logs one JSON record on Config.Audit (stderr by default,
// whatever the log level), message "audit": operation (OpCreate, OpReplace, OpPatch,
// OpDelete, OpKeyIssue, OpKeyRevoke, OpKeyPurge, OpReset, and OpPlanCreate,
// OpPlanReplace, OpPlanDelete, which name the plan instead of the tenant), tenant, caller, request_id
// (the API Gateway request, when there is one), and for tenant writes old_version and
// new_version (0 for none) and changed, the names of the tenant's fields whose values
// changed (never the values); a key operation names its key_id instead (key records
// are not part of the tenant's version). The caller is the IAM principal of the API
// Gateway request context (REST: identity.userArn, else caller; HTTP API:
// authorizer.iam.userArn), "unknown" for an event without one, and LocalCaller
// ("local") for a request served by ServeHTTP directly, as `edgelimit dev` does. A
// refused write logs nothing; no record holds a key, its secret or its hash. Records
// are not stored: the log is the history.
//
// # Time
//
// Config.Now is the clock (microseconds since the Unix epoch): zone changes, key
// creation and revocation, and usage read it and nothing else.
package admin
