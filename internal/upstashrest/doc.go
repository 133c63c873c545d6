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
// It sends with net/http, one http.Transport shared by its Clients (transport.go),
// which does for us what a connection pool must: kept-alive connections (64 idle per
// host at most, one idle for 30 s closed, below common load balancers' 60 s), HTTP/2
// when the server offers it over TLS, TLS 1.2 or later, the environment's proxy
// (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), a connection the server closed while idle found
// and left, and each call's deadline on its own request alone (a connection does not
// keep the last call's deadline). What we write is the protocol: commands as arrays
// of strings and replies as Replies, both through encoding/json. The client has no
// allocation goal: a decision's round trip takes milliseconds over the network.
//
// No command that may have run is sent twice. net/http sends a POST again only when
// the connection it chose failed with nothing written (it needs the request's
// GetBody, which a bytes.Reader body gives); once a byte is written, a failure is the
// caller's error (TestReusedConnectionClosedAfterTheRequestIsAnError and
// TestIdleConnectionClosedBeforeTheWriteGoesOnANewOne). The answer's head is capped at
// 1 MiB and its body at Config.MaxReplyBytes.
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
// No error quotes the bytes of a reply, since they are stored data (a key record, a
// tenant document, a counter) and errors end in the decision log's reason: a
// malformed reply is described by its shape (Reply.Shape: the kinds and lengths), a
// JSON fault by its offset and kinds, a body by its length. The one text quoted is
// the server's own error message, the "error" of an Upstash answer ("ERR ...",
// "NOSCRIPT ..."), in a CommandError, a StatusError or after ErrUnauthorized, on one
// line of at most 200 bytes; any other body of an error status (a proxy's page, a
// bare text) is not the server's message and is given by its length only.
//
// Configure with a Config and NewClient. Timeouts come from the context of each call.
package upstashrest
