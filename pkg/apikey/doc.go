// Package apikey makes, parses and hashes edgelimit API keys.
//
// A key is "elk_" + an 8-character key id (lowercase letters and digits) + "_" + 32
// random bytes in base64url without padding (43 characters): 56 characters in all,
// every random part from crypto/rand. The key id is not secret: it names the key in
// listings (Record.Prefix shows "elk_ab12cd34_…") and in counter keys.
//
// A key is shown once, when Generate makes it, and never stored or logged: stores keep
// a Record holding the SHA-256 of the whole key (Hash, lowercase hex). A request's key
// is looked up by its hash, and every comparison of hashes is constant-time (Equal).
// The Key type holds a raw key and redacts it everywhere it could leak: String,
// GoString, Format (every fmt verb), MarshalJSON, MarshalText and LogValue print only
// its prefix; Reveal is the one way to read it.
package apikey
