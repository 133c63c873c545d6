// Package simulate replays a trace of requests through a limiter.Set, as
// `edgelimit simulate` does: it parses the trace format, validates all of it before
// anything runs, and writes one JSON line per decision.
//
// The trace format is one request per line, `TIME[,KEY[,COST[,ADDR]]]`: blank lines and
// lines starting with '#' are skipped, fields are trimmed, TIME is decimal seconds since
// the Unix epoch or an RFC 3339 timestamp (non-decreasing, truncated to microseconds),
// KEY (the caller's API key) defaults to "default", COST to 1, and ADDR (the client's
// IP address) to unknown.
//
// The trace is one tenant's traffic, and each rule counts in its scope as the
// authorizer counts it: a tenant-scope rule (the default) counts every line in one
// counter, a key-scope rule each KEY apart, an ip-scope rule each ADDR apart (IPv6 per
// /64; the lines without one together). A request is allowed only if every counter
// allows it.
package simulate
