// Package upstashlocal serves the Upstash Redis REST API in front of a real
// Redis server, so that the Upstash backend and the official Upstash clients can
// be tested on a machine without the Upstash service. `edgelimit upstash-local`
// runs it.
//
// It speaks the shapes Upstash documents and its official client expects:
//
//   - POST / with a JSON array command (["SET", "k", "v"]); JSON numbers and
//     booleans are accepted as arguments and passed on as their text.
//   - POST /pipeline with an array of commands, answered with an array of
//     {"result": ...} or {"error": "..."}; POST /multi-exec runs them in one
//     MULTI/EXEC on one connection, answered the same way. A transaction Redis
//     aborts (EXECABORT, a command refused while queueing) is a 400 as a whole.
//   - GET or POST /COMMAND/ARG/... (the path form): a POST body is the last
//     argument, query parameters after it (?EX=100 adds EX 100).
//   - Authorization: Bearer TOKEN (or ?_token=TOKEN); otherwise 401
//     {"error":"Unauthorized"}. Redis errors are 400 {"error":"ERR ..."};
//     Redis nil is {"result":null}; a body over the cap is 413.
//   - Upstash-Encoding: base64 encodes every string in the result, in arrays
//     too, except the status reply "OK"; integers and nil are left alone.
//   - Every answer carries an upstash-sync-token header (a counter: one Redis
//     has no replicas to wait for).
//
// Scripts: Upstash accepts a first line "#!lua flags=allow-key-locking", which
// Redis 7 rejects. In EVAL, EVAL_RO and SCRIPT LOAD such a line is blanked (its
// line break kept, so Lua error line numbers still match the source) before
// Redis sees the script, and the server remembers the SHA1 of the text the
// client sent against the SHA1 Redis knows, so EVALSHA with the client's SHA runs
// the script, and an unknown SHA gets Redis's own NOSCRIPT answer. SCRIPT LOAD
// answers the client's SHA. In place of that line (on the same line) the script gets
// a check: a command on a key the script did not declare in KEYS fails it, as Upstash
// refuses such a key under per-key locks.
//
// The server talks RESP2 to Redis, as Upstash answers in RESP2 shapes (arrays,
// not maps), and never retries a command.
package upstashlocal
