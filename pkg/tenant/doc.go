// Package tenant is edgelimit's tenant model: who is limited, by which rules, in which
// time zone, and on which routes. It holds no I/O: stores (pkg/store) keep
// tenants, and the authorizer and admin function read and update them through this
// package.
//
// A Tenant's JSON form is the public contract of the admin API and the tenants file:
//
//	{
//	  "id": "acme",
//	  "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}],
//	  "timezone": "Asia/Tokyo",
//	  "fail_mode": "closed",
//	  "status": "active",
//	  "shadow": false,
//	  "routes": [{"method": "POST", "resource": "/orders/{id}",
//	              "rules": [{"algorithm": "token_bucket", "limit": 5, "period": "1s"}]}],
//	  "metadata": {"plan": "pro"},
//	  "version": 3,
//	  "generation": 0
//	}
//
// Decode reads it strictly (unknown fields are errors) and Validate reports the first
// problem as a *limiter.FieldError naming the field by its path, such as
// "routes[1].rules[0].limit" or "timezone". Version, Generation, CreationID and
// ZoneChanges are server-managed: stores set Version and CreationID on creation, Reset
// bumps Generation, and ApplyUpdate carries all four over from the stored tenant when a
// client replaces or patches it.
//
// Limiting: Tenant.Sets compiles the tenant's rules and each route's rules into
// limiter.Sets once (cache the result with the tenant); Sets.Match finds the route of a
// request from the API Gateway v1 resource or v2 routeKey; Sets.Checks lists the
// decisions to make, each with its counter key from CreatedCounterKey. A route's rules apply
// on top of the tenant's, under a counter key of their own.
//
// Plans and overrides: a tenant may name a Plan (its "plan" member), whose rules and
// routes it shares with every tenant on that plan, and carry temporary Overrides
// ({"rules": [...], "until": "<RFC 3339>"}) that end by themselves. Tenant.Effective
// merges them for a decision at an instant: the plan's, then the tenant's own, then the
// overrides still active, a later rule replacing an earlier one of the same name;
// compile its result with Sets. CheckMerge is the write-time check of the merge, a
// key's own rules included: its rule count, its routes' costs, the store's limits.
// CheckResources is the write-time check of the routes' resources: a greedy variable
// before the last segment, which API Gateway refuses (Validate reads it, as stored).
//
// Time zones: the tenant's zone governs all its calendar rules. A change of zone takes
// effect at the first window boundary of the new zone at or after the end of the
// current window (see limiter.Zone); ApplyUpdate records each change in the tenant's
// ZoneChanges and drops changes once they have taken effect. Zone names are IANA names
// that LoadLocation loads from Go's time zone database embedded in the package (the
// zoneinfo folder), never from the system's files, so that every instance computes
// the same windows whatever image it runs on.
package tenant
