package tenant

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

type keyParts struct {
	tenant     string
	generation int64
	route      string
	identity   string
}

func TestCounterKeyCollisions(t *testing.T) {
	// Each pair would give the same key under naive concatenation with some separator.
	pairs := []struct {
		name string
		a, b keyParts
	}{
		{"tenant absorbs the route", keyParts{"ab", 0, "c", "k:1"}, keyParts{"a", 0, "bc", "k:1"}},
		{"separator in the tenant id", keyParts{"a:b", 0, "", "k:1"}, keyParts{"a", 0, "b:", "k:1"}},
		{"separator in the route", keyParts{"acme", 0, "GET /a|1:x", "k:1"}, keyParts{"acme", 0, "GET /a", "x|k:1"}},
		{"length prefix forged in the identity", keyParts{"acme", 0, "", "3:abc|1:z"}, keyParts{"acme", 0, "3:abc", "1:z"}},
		{"route and identity swap", keyParts{"acme", 0, "k:1", ""}, keyParts{"acme", 0, "", "k:1"}},
		{"generation digits", keyParts{"a", 12, "", "3"}, keyParts{"a", 1, "", "23"}},
		{"tenant id ending in a generation", keyParts{"a-1", 2, "", "k:1"}, keyParts{"a", 12, "", "k:1"}},
		{"dashes and underscores", keyParts{"a_b", 0, "-", "k:1"}, keyParts{"a", 0, "_b-", "k:1"}},
		{"tenant-wide versus a route", keyParts{"acme", 0, "", "ip:10.0.0.1"}, keyParts{"acme", 0, "ANY $default", "ip:10.0.0.1"}},
		{"reset changes the key", keyParts{"acme", 0, "", "k:1"}, keyParts{"acme", 1, "", "k:1"}},
		{"key identity versus IP identity", keyParts{"acme", 0, "", IdentityKey("1")}, keyParts{"acme", 0, "", IdentityIP("1")}},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			ka := CounterKey(p.a.tenant, p.a.generation, p.a.route, p.a.identity)
			kb := CounterKey(p.b.tenant, p.b.generation, p.b.route, p.b.identity)
			if ka == kb {
				t.Errorf("%+v and %+v share the key %q", p.a, p.b, ka)
			}
		})
	}
}

// TestCounterKeyInjective decodes keys built from random parts full of separators: a
// key that decodes back to its parts cannot be shared by other parts.
func TestCounterKeyInjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	seen := map[string]keyParts{}
	for range 20000 {
		p := randomParts(rng, 6)
		key := CounterKey(p.tenant, p.generation, p.route, p.identity)
		got, err := parseCounterKey(key)
		if err != nil || got != p {
			t.Fatalf("key %q of %+v decodes to %+v, %v", key, p, got, err)
		}
		if other, ok := seen[key]; ok && other != p {
			t.Fatalf("%+v and %+v share the key %q", p, other, key)
		}
		seen[key] = p
	}
}

func TestCounterKeyFormat(t *testing.T) {
	got := CounterKey("acme", 0, "GET /orders/{id}", IdentityKey("ab12cd34"))
	if want := "c1|4:acme|0|16:GET /orders/{id}|10:k:ab12cd34"; got != want {
		t.Errorf("CounterKey = %q, want %q (the example in its doc)", got, want)
	}
}

// parseCounterKey is CounterKey's inverse.
func parseCounterKey(key string) (keyParts, error) {
	rest, ok := strings.CutPrefix(key, counterKeyVersion)
	if !ok {
		return keyParts{}, fmt.Errorf("no version")
	}
	var p keyParts
	var err error
	if p.tenant, rest, err = readPart(rest); err != nil {
		return p, err
	}
	gen, rest, ok := strings.Cut(strings.TrimPrefix(rest, "|"), "|")
	if !ok {
		return p, fmt.Errorf("no generation")
	}
	if p.generation, err = strconv.ParseInt(gen, 10, 64); err != nil {
		return p, err
	}
	if p.route, rest, err = readPart("|" + rest); err != nil {
		return p, err
	}
	if p.identity, rest, err = readPart(rest); err != nil || rest != "" {
		return p, fmt.Errorf("identity: %v, %q left", err, rest)
	}
	return p, nil
}

func readPart(s string) (part, rest string, err error) {
	s, ok := strings.CutPrefix(s, "|")
	if !ok {
		return "", "", fmt.Errorf("no separator in %q", s)
	}
	n, s, ok := strings.Cut(s, ":")
	length, err := strconv.Atoi(n)
	if !ok || err != nil || length > len(s) {
		return "", "", fmt.Errorf("bad length in %q", s)
	}
	return s[:length], s[length:], nil
}

// TestCounterKeyTenant reads the tenant back from keys of random parts full of
// separators, and refuses keys CounterKey did not make.
func TestCounterKeyTenant(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	for range 20000 {
		p := randomParts(rng, 8)
		got, ok := CounterKeyTenant(CounterKey(p.tenant, p.generation, p.route, p.identity))
		if !ok || got != p.tenant {
			t.Fatalf("the tenant of %+v reads as %q, %v", p, got, ok)
		}
	}
	for _, key := range []string{"", "acme", "c1|", "c1|4:acm", "c1|4:acme", "c1|4:acmex|0", "c2|4:acme|0|0:|1:t",
		"c1|+4:acme|0|0:|1:t", "c1|:acme|0", "c1|99999:a|", "storetest:a:b"} {
		if got, ok := CounterKeyTenant(key); ok {
			t.Errorf("CounterKeyTenant(%q) = %q, true; want false: CounterKey makes no such key", key, got)
		}
	}
	if got, ok := CounterKeyTenant("c1|4:acme|0|12:POST /orders|1:t"); !ok || got != "acme" {
		t.Errorf("the README's key reads as %q, %v", got, ok)
	}
}

// randomParts returns key parts of up to maxLen bytes full of separators.
func randomParts(rng *rand.Rand, maxLen int) keyParts {
	const alphabet = "a1|:- 9_/{}"
	part := func() string {
		b := make([]byte, rng.IntN(maxLen))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	return keyParts{part(), rng.Int64N(30), part(), part()}
}

// TestCreationIDInCounterKeys: a tenant created again (a new creation id) counts under
// new keys, carried over by updates and resets; a tenant without one keeps
// CounterKey's keys.
func TestCreationIDInCounterKeys(t *testing.T) {
	if got, want := CreatedCounterKey("acme", "3f9a0c1b2d4e", 0, "", IdentityTenant), "c1|4:acme|0.3f9a0c1b2d4e|0:|1:t"; got != want {
		t.Errorf("CreatedCounterKey = %q, want %q (the example in its doc)", got, want)
	}
	if CreatedCounterKey("acme", "", 2, "r", "t") != CounterKey("acme", 2, "r", "t") {
		t.Error("no creation id: not CounterKey's key")
	}
	a, b := NewCreationID(), NewCreationID()
	if a == b || !validCreationID(a) || len(a) != 12 {
		t.Fatalf("NewCreationID gave %q then %q", a, b)
	}
	ten, err := Decode([]byte(`{"id": "acme", "creation_id": "` + a + `", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	again := ten
	again.CreationID = b
	keyOf := func(t Tenant) string { s, _ := t.Sets(); return s.Checks(nil, nil, Caller{})[0].Key }
	if keyOf(ten) == keyOf(again) {
		t.Error("a tenant created again shares its counter keys with the first")
	}
	updated, err := ApplyUpdate(ten, again, 0)
	if err != nil || updated.CreationID != a || Reset(ten).CreationID != a || ApplyCreate(ten).CreationID != "" {
		t.Errorf("ApplyUpdate kept %q (%v), Reset %q, ApplyCreate %q; want %q, %q, \"\"", updated.CreationID, err, Reset(ten).CreationID, ApplyCreate(ten).CreationID, a, a)
	}
	for _, bad := range []string{"UPPER", "a|b", strings.Repeat("a", MaxCreationIDLen+1)} {
		ten.CreationID = bad
		if err := ten.Validate(); err == nil || !strings.Contains(err.Error(), "creation_id") {
			t.Errorf("creation id %q: %v", bad, err)
		}
	}
}
