package gate

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// tokenVersion is the first byte of every reservation token: a token of another
// version is refused, so the format can change without misreading an older one.
const tokenVersion = 1

// nonceBytes is the size of a reservation's random nonce: 128 bits, 22 characters of
// base64url, the store's Settlement.ID.
const nonceBytes = 16

// MinSecretBytes is the shortest Config.ReservationSecret: 32 bytes, the size of an
// HMAC-SHA256 key that adds nothing to guess by being longer.
const MinSecretBytes = 32

// maxTokenBytes bounds what open reads (base64url of the longest claims and tag).
const maxTokenBytes = 1024

// errBadToken is open's answer for a token that is malformed, forged, of another
// secret or version: the caller says "unknown" and changes nothing.
var errBadToken = errors.New("gate: not a reservation of this gate")

// claims is what a reservation token carries: all that settling it needs, sealed with
// the gate's secret so that no caller can forge or change it.
type claims struct {
	Tenant  string // tenant id
	Version int64  // the decision's compiled rules (tenantEntry.rules: the tenant's version, its plan's, its active overrides, the key's own rules)
	Route   string // the route's name, "" off any route
	KeyID   string // the caller's key id, "" without a key
	KeyHash string // the key's hash when it has rules of its own (to compile them again), else ""
	Addr    string // the caller's address, "" without a valid one
	Cost    int64  // the cost reserved
	At      int64  // the decision's instant (µs)
	Expires int64  // the reservation's expiry (µs)
	Nonce   string // base64url of nonceBytes random bytes: the store's Settlement.ID
}

// newNonce draws a fresh nonce from crypto/rand.
func newNonce() string {
	var b [nonceBytes]byte
	rand.Read(b[:]) // never fails (crypto/rand's contract since Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// seal encodes c and its HMAC-SHA256 under secret as base64url.
func seal(secret []byte, c claims) string {
	b := make([]byte, 0, 128+len(c.Tenant)+len(c.Route)+len(c.KeyHash)+len(c.Addr))
	b = append(b, tokenVersion)
	for _, s := range []string{c.Tenant, c.Route, c.KeyID, c.KeyHash, c.Addr, c.Nonce} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, n := range []int64{c.Version, c.Cost, c.At, c.Expires} {
		b = binary.AppendVarint(b, n)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(b))
}

// open checks token's tag under secret and returns its claims, or errBadToken.
func open(secret []byte, token string) (claims, error) {
	if len(token) > maxTokenBytes {
		return claims{}, errBadToken
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) < 1+sha256.Size || b[0] != tokenVersion {
		return claims{}, errBadToken
	}
	body, tag := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(tag, mac.Sum(nil)) {
		return claims{}, errBadToken
	}
	return decodeClaims(body[1:])
}

// decodeClaims reads the fields seal wrote, in its order.
func decodeClaims(b []byte) (claims, error) {
	var c claims
	for _, s := range []*string{&c.Tenant, &c.Route, &c.KeyID, &c.KeyHash, &c.Addr, &c.Nonce} {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return claims{}, errBadToken
		}
		*s, b = string(b[k:k+int(n)]), b[k+int(n):]
	}
	for _, n := range []*int64{&c.Version, &c.Cost, &c.At, &c.Expires} {
		v, k := binary.Varint(b)
		if k <= 0 {
			return claims{}, errBadToken
		}
		*n, b = v, b[k:]
	}
	if len(b) != 0 {
		return claims{}, errBadToken
	}
	return c, nil
}
