// Package simulate replays a trace of requests through a limiter.Set, as
// `edgelimit simulate` does: it parses the trace format, validates all of it before
// anything runs, and writes one JSON line per decision.
//
// The trace format is one request per line, `TIME[,KEY[,COST]]`: blank lines and lines
// starting with '#' are skipped, fields are trimmed, TIME is decimal seconds since the
// Unix epoch or an RFC 3339 timestamp (non-decreasing, truncated to microseconds), KEY
// defaults to "default" and COST to 1.
package simulate
