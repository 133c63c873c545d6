// Package apply keeps an admin API's plans, tenants and keys as a file says: limits as
// code, for `edgelimit apply` and `edgelimit export`.
//
// # The file
//
// A file (YAML or JSON, the same shapes) holds three lists:
//
//	plans:   [{id, rules, routes}]                      the body of PUT /plans/{id}, with its id
//	tenants: [{id, plan, rules, routes, timezone, ...}] the body of PUT /tenants/{id}
//	keys:    {KEY_ID: {tenant, status}}                 status "active" (the default) or "revoked"
//
// Each object is the whole of what it should be, as a PUT body is: a field left out
// takes its default (time zone UTC, fail mode closed, status active, no routes, no
// metadata, no plan), so that deleting a line from the file removes it from the server.
// A tenant needs rules unless it names a plan; a plan needs rules. Server-managed
// fields (version, generation, zone_changes) are ignored, so an export or a GET body
// can be kept as it is. Parse validates every object with the tenant package's rules,
// and each tenant merged with its plan and its overrides as the admin API does
// (tenant.Tenant.CheckPlan; Diff does it against the server's plan when the file does
// not hold it), before anything is written: bad input is an error naming the object
// and the field, and changes nothing.
//
// Keys carry no secret. The admin API draws a new key's id itself (POST
// /tenants/{id}/keys), so a key in the file must exist already: apply revokes a key
// whose status is "revoked", and refuses a key it cannot find (issue it with the admin
// API, then export to list it) and a revoked key marked active (a revoked key cannot
// come back). A key entry holds tenant and status only (other fields are refused): a
// key's own rules (POST /tenants/{id}/keys with rules) are set when it is issued, and
// apply and export leave them out and as they are on the server. A tenant to replace is
// checked against them, as the admin API checks it (Refresh reads its keys).
//
// # Diff and apply
//
// Read lists the server's state (GET /plans, /tenants and each tenant's keys), Diff
// compares it with a file, Print writes one line per object that differs, in the
// order Write writes them, and Run does all four for `edgelimit apply`:
// "+ tenant acme" (created), "~ tenant acme: rules[0].limit 100 -> 200" (replaced),
// "- tenant acme" (deleted: only with prune), then a summary.
// Plans are written before the tenants that name them and deleted after them.
// Objects the server holds and the file does not are left alone unless prune is set:
// then they are deleted (a key is revoked). An unchanged object writes nothing, so a
// second apply of a file makes no request but reads.
//
// Every write of an object that exists is conditional on the ETag read before the
// diff: Refresh reads each object to replace or delete again (GET), and the diff
// printed is against that body, the If-Match its ETag header. When another client
// changed the object in between, the server answers 412 and Write stops with an error
// wrapping ErrConflict that names the object and says to run again; nothing is lost. A
// create that finds the object created meanwhile (409) is a conflict too. A key's
// revocation is not conditional: key records have no version, and revoking is
// idempotent.
//
// # The admin API
//
// Client talks to the admin API at a base URL: `edgelimit dev`'s
// (http://127.0.0.1:3000/admin; a plain http URL without a path gets /admin) unsigned,
// and a deployed one (AdminApiUrl, https) signed with AWS SigV4 for execute-api, with
// the credentials of the AWS SDK's default chain and the region of the URL's host
// ({api}.execute-api.{region}.amazonaws.com), else of the SDK's configuration
// (AWS_REGION). A server without plan routes (404 on GET /plans) has no plans: a file
// that holds some is then refused.
package apply
