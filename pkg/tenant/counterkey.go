package tenant

import (
	"crypto/rand"
	"encoding/hex"
	"net/netip"
	"strconv"
	"strings"
)

// counterKeyVersion starts every counter key, so that a future encoding cannot collide
// with this one.
const counterKeyVersion = "c1"

// CounterKey returns the key under which a backend counts requests of identity to
// route of tenant tenantID in generation generation. route is "" for the tenant-wide
// rules, or a Route's Name; identity is who is limited: IdentityTenant, IdentityKey(keyID) or
// IdentityIP(ip) (Caller.Identity).
//
// Every part is written with its length in front ("c1|4:acme|0|16:GET /orders/{id}|10:k:ab12cd34"),
// so the encoding is injective: two different tuples never give the same key, whatever
// separators the parts contain. Bumping the generation (Reset) changes every key of the
// tenant at once. It is CreatedCounterKey for a tenant without a creation id.
func CounterKey(tenantID string, generation int64, route, identity string) string {
	return CreatedCounterKey(tenantID, "", generation, route, identity)
}

// CreatedCounterKey is CounterKey for the tenant created with creationID
// (Tenant.CreationID): the generation part becomes "<generation>.<creation id>"
// ("c1|4:acme|0.3f9a0c1b2d4e|..."), so that a tenant created again under the same id
// counts under new keys. An empty creationID gives CounterKey's key.
func CreatedCounterKey(tenantID, creationID string, generation int64, route, identity string) string {
	var b strings.Builder
	b.Grow(len(counterKeyVersion) + len(tenantID) + len(creationID) + len(route) + len(identity) + 32)
	b.WriteString(counterKeyVersion)
	writePart(&b, tenantID)
	b.WriteByte('|')
	b.WriteString(strconv.FormatInt(generation, 10))
	if creationID != "" {
		b.WriteByte('.')
		b.WriteString(creationID)
	}
	writePart(&b, route)
	writePart(&b, identity)
	return b.String()
}

// CounterKeyTenant returns the tenant id of a key that CounterKey made, read from its
// length-prefixed first part without allocating ("acme" for "c1|4:acme|0|..."), and
// false for a key of another form. A backend that must keep a tenant's counters
// together (the hash tag of a Redis Cluster key) derives where to put a key from it.
func CounterKeyTenant(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, counterKeyVersion+"|")
	if !ok {
		return "", false
	}
	n, colon := 0, 0
	for ; colon < len(rest) && colon < 5 && rest[colon] >= '0' && rest[colon] <= '9'; colon++ {
		n = n*10 + int(rest[colon]-'0')
	}
	// At most 4 digits: keys that long are past every store's bound anyway.
	if colon == 0 || colon == 5 || colon >= len(rest) || rest[colon] != ':' {
		return "", false
	}
	end := colon + 1 + n
	if end >= len(rest) || rest[end] != '|' {
		return "", false
	}
	return rest[colon+1 : end], true
}

func writePart(b *strings.Builder, s string) {
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

// IdentityTenant is the identity of a tenant-scope counter: every request of the
// tenant, for CounterKey.
const IdentityTenant = "t"

// IdentityKey returns the identity of requests made with the API key whose key id is
// keyID, for CounterKey.
func IdentityKey(keyID string) string { return "k:" + keyID }

// IdentityIP returns the identity of requests from client address ip (ClientAddress),
// for CounterKey.
func IdentityIP(ip string) string { return "ip:" + ip }

// IdentityAddressKey returns the identity under which a key-scope rule counts the
// requests without an API key from client address ip, for CounterKey: the address
// stands in for the key, in a counter of its own, apart from the ip-scope counter of
// the same address (IdentityIP), which requests with a key from that address share.
func IdentityAddressKey(ip string) string { return "ka:" + ip }

// ClientAddress returns the address an anonymous client is limited by: the IPv4
// address, or the /64 of an IPv6 address (IPv4-mapped IPv6 addresses count as IPv4),
// so that one IPv6 host cannot take a fresh quota from each of its addresses. ok is
// false when s is not an IP address.
func ClientAddress(s string) (addr string, ok bool) {
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return "", false
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String(), true
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return "", false
	}
	return p.String(), true
}

// MaxCreationIDLen bounds a tenant's CreationID, in bytes.
const MaxCreationIDLen = 32

// NewCreationID returns a new tenant's creation id: 12 lowercase hex digits from
// crypto/rand, so that a tenant created again under the same id gets other counter
// keys (CreatedCounterKey). Stores call it in Create (store.PrepareCreate).
func NewCreationID() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// validCreationID reports whether id can be a CreationID: empty, or up to
// MaxCreationIDLen lowercase ASCII letters and digits (nothing a counter key's parts
// are separated by).
func validCreationID(id string) bool {
	return len(id) <= MaxCreationIDLen && asciiOnly(id, false, "")
}
