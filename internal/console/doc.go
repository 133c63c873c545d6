// Package console is the local web console of `edgelimit dev`: one page, embedded in
// the binary (HTML, JavaScript and CSS with no build step and nothing fetched from
// elsewhere), served under /console/. The page uses the admin API and nothing else:
//
//   - /admin/tenants... (internal/admin): it lists tenants and their keys, creates tenants,
//     issues and revokes keys, and polls each key's usage every second, showing each
//     rule's use and next reset in the tenant's time zone;
//   - GET /admin/dev/traffic?tenant_id=&seconds= (this package, read-only): allowed,
//     denied, unauthorized and fail-mode answers per second over the last seconds
//     (at most MaxSeconds), counted by Traffic from the EMF documents the authorizer
//     writes for each decision, the same metrics CloudWatch charts when deployed;
//   - POST /admin/dev/simulate (this package, read-only): `edgelimit simulate` over
//     HTTP, {"rules": [...], "timezone": "UTC", "trace": "TIME[,KEY[,COST[,ADDR]]] lines"} in,
//     {"decisions": [...], "allowed": N, "total": M} out, with which the page draws how
//     each algorithm treats a trace.
//
// The two /admin/dev/ endpoints exist only in `edgelimit dev`, which keeps its
// decisions in-process; the deployed admin API has neither (the CloudWatch dashboard
// charts the same metrics). Mount puts the console in front of the local gateway.
package console
