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
// It sends over a connection pool of its own rather than net/http's client, which
// costs some 56 allocations a round trip where a whole decision's budget is 40
// (TestDecideAllocations in pkg/store/upstash):
//
//   - Kept-alive HTTP/1.1 connections (TLS 1.2 or later for https, ServerName set, the
//     system's roots), one request at a time each, shared by the Clients of one
//     scheme and host. A request is written whole from a reused buffer; the answer is
//     read with net/http's own parser (http.ReadResponse: Content-Length, chunked,
//     Connection: close), its head capped at 1 MiB and its body at
//     Config.MaxReplyBytes.
//   - At most 64 idle connections per host; one idle for 30 s is closed rather than
//     reused (Upstash does not document its REST idle timeout; 30 s is below common
//     load balancers' 60 s). Before reuse, a non-blocking peek at the socket finds one
//     the server closed meanwhile (Linux and macOS).
//   - A connection that errs, answers Connection: close, leaves its body unread, or
//     whose call's context ends (the deadline is set on it; cancellation closes it) is
//     dropped, never reused.
//   - The one request that goes again: one whose write fails, with not a byte written,
//     on a reused connection (the server cannot have seen it); once, on a new one.
//   - When the environment names a proxy for the URL (HTTPS_PROXY, HTTP_PROXY,
//     NO_PROXY), and when Config.HTTPClient is set, requests go through net/http
//     instead, as before.
//
// Commands are encoded by appending into pooled buffers (Args and EvalArgs spare a
// hot path the boxing of Do's ...any), and replies are parsed, once encoding/json has
// checked they are valid JSON, straight into Replies.
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
