// Package upstashrest is a small client for the Upstash Redis REST API (Client),
// which pkg/store/upstash speaks through.
//
// We wrote our own rather than use a library: no Upstash Go module is served by
// our module proxy, the store needs only a handful of operations (a command, a
// pipeline, a transaction, a script), and it needs full control of every round
// trip. In particular the client never retries a command by itself: a retry after
// a lost reply would run a rate-limit script twice and consume twice. One call is
// one HTTP request, except Eval, which follows a NOSCRIPT answer with EVAL (the
// script did not run, so that is not a retry).
//
// The protocol, as Upstash documents it and its official TypeScript client
// (@upstash/redis) speaks it:
//
//   - POST a JSON array of strings (["EVALSHA", sha, "1", key, arg]) to the REST
//     URL, with "Authorization: Bearer TOKEN"; /pipeline and /multi-exec take an
//     array of such arrays and answer an array of results.
//   - A reply is {"result": ...} or {"error": "..."}; command errors come with
//     status 400, a bad token with 401.
//   - The client always sends "Upstash-Encoding: base64", so string replies arrive
//     in base64 and binary values survive JSON; the status reply "OK" is sent as is.
//     Integers arrive as JSON numbers and are decoded exactly.
//   - The reply header upstash-sync-token is sent back with the next request, so a
//     read sees the writes before it (read-your-writes) across replicas.
//
// Replies are Reply values with checked accessors (Int64, String, Array, IsNil):
// an unexpected reply is an error, never a panic. Errors are typed for errors.Is
// and errors.As: ErrUnauthorized, *CommandError (see IsNoScript), *StatusError,
// ErrMalformedReply, and context or transport errors, wrapped.
//
// Configure with ConfigFromEnv (UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN)
// and NewClient. Timeouts come from the context of each call.
package upstashrest
