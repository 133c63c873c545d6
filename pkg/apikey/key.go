package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
)

// The key format.
const (
	Scheme       = "elk_" // every key starts with it
	KeyIDLen     = 8      // characters in a key id
	SecretBytes  = 32     // random bytes in a key's secret
	secretLen    = 43     // base64url characters of SecretBytes, without padding
	KeyLen       = len(Scheme) + KeyIDLen + 1 + secretLen
	HashLen      = 2 * sha256.Size // hex characters in a Hash
	keyIDChars   = "abcdefghijklmnopqrstuvwxyz0123456789"
	redactedTail = "…"
)

// ErrFormat is returned (wrapped) by Parse for text that is not a well-formed key. Its
// messages say what is wrong and where, never what the text holds.
var ErrFormat = errors.New("apikey: malformed key")

var secretEncoding = base64.RawURLEncoding.Strict()

// Key is a raw API key. It redacts itself in every output form: only Reveal returns the
// secret text. The zero Key is invalid and prints as "elk_<none>".
type Key struct {
	raw string
}

// New returns a new random key.
func New() Key {
	id := make([]byte, KeyIDLen)
	for i := range id {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(keyIDChars)))) // uniform; rand.Reader never fails
		id[i] = keyIDChars[n.Int64()]
	}
	secret := make([]byte, SecretBytes)
	rand.Read(secret) // never fails: crypto/rand crashes the program instead
	return Key{raw: Scheme + string(id) + "_" + secretEncoding.EncodeToString(secret)}
}

// Parse checks that s is a well-formed key and returns it. The error wraps ErrFormat
// and never quotes s.
func Parse(s string) (Key, error) {
	switch {
	case len(s) != KeyLen:
		return Key{}, fmt.Errorf("%w: %d characters, want %d (elk_ + key id + _ + secret)", ErrFormat, len(s), KeyLen)
	case s[:len(Scheme)] != Scheme:
		return Key{}, fmt.Errorf("%w: does not start with %q", ErrFormat, Scheme)
	case !ValidKeyID(s[len(Scheme) : len(Scheme)+KeyIDLen]):
		return Key{}, fmt.Errorf("%w: the key id (characters 5 to 12) must be %d lowercase letters or digits", ErrFormat, KeyIDLen)
	case s[len(Scheme)+KeyIDLen] != '_':
		return Key{}, fmt.Errorf("%w: character 13 must be '_'", ErrFormat)
	}
	if _, err := secretEncoding.DecodeString(s[len(Scheme)+KeyIDLen+1:]); err != nil {
		return Key{}, fmt.Errorf("%w: the secret (the last %d characters) is not unpadded base64url", ErrFormat, secretLen)
	}
	return Key{raw: s}, nil
}

// ValidKeyID reports whether id is a key id: 8 lowercase ASCII letters or digits.
func ValidKeyID(id string) bool { return len(id) == KeyIDLen && strings.Trim(id, keyIDChars) == "" }

// Reveal returns the raw key, to show to its owner once. Never log or store it.
func (k Key) Reveal() string { return k.raw }

// IsZero reports whether k is the zero Key.
func (k Key) IsZero() bool { return k.raw == "" }

// ID returns the key id, or "" for the zero Key.
func (k Key) ID() string {
	if len(k.raw) != KeyLen {
		return ""
	}
	return k.raw[len(Scheme) : len(Scheme)+KeyIDLen]
}

// Hash returns the SHA-256 of the whole key in lowercase hex: what stores keep.
func (k Key) Hash() string { return Hash(k.raw) }

// Prefix returns the key's display form, "elk_ab12cd34_…".
func (k Key) Prefix() string { return Prefix(k.ID()) }

// String returns the key's display form, never the key.
func (k Key) String() string { return k.Prefix() }

// GoString returns the key's display form, never the key.
func (k Key) GoString() string { return "apikey.Key(" + k.Prefix() + ")" }

// Format prints the display form for every fmt verb, so that no verb shows the key.
func (k Key) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, k.GoString())
		return
	}
	fmt.Fprint(f, k.Prefix())
}

// MarshalJSON encodes the display form, never the key.
func (k Key) MarshalJSON() ([]byte, error) { return json.Marshal(k.Prefix()) }

// MarshalText encodes the display form, never the key.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.Prefix()), nil }

// LogValue logs the display form, never the key.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.Prefix()) }

// Prefix returns the display form of the key whose id is keyID: "elk_ab12cd34_…".
func Prefix(keyID string) string {
	if keyID == "" {
		return Scheme + "<none>"
	}
	return Scheme + keyID + "_" + redactedTail
}

// Hash returns the SHA-256 of key in lowercase hex. It hashes any text: call Parse
// first to reject malformed keys.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// hexDigits are the digits of a Hash.
const hexDigits = "0123456789abcdef"

// ValidHash reports whether h looks like a Hash: 64 lowercase hex digits.
func ValidHash(h string) bool { return len(h) == HashLen && strings.Trim(h, hexDigits) == "" }

// Equal reports whether two hashes are equal, in time that depends only on their
// lengths.
func Equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
