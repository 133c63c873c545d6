// Package redact gives errors about store replies and stored documents messages that
// describe the bytes (their kind, their length, the offset of a fault) and never quote
// them, so that a decision log's reason, which is an error's text, carries no part of
// a key record, a tenant document or a counter's state.
//
// Wrap keeps the error it describes reachable: errors.Is and errors.As see through
// it, only Error changes. JSON describes an encoding/json decoding error so.
package redact
