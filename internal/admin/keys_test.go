package admin_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
)

type keyBody struct {
	Key       string  `json:"key"`
	KeyID     string  `json:"key_id"`
	Prefix    string  `json:"prefix"`
	Created   string  `json:"created"`
	Revoked   bool    `json:"revoked"`
	RevokedAt *string `json:"revoked_at"`
}

func TestKeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		r := e.do("POST", "/tenants/acme/keys", "").want(t, http.StatusCreated)
		var k keyBody
		r.json(t, &k)
		parsed, err := apikey.Parse(k.Key)
		if err != nil || parsed.ID() != k.KeyID || k.Prefix != apikey.Prefix(k.KeyID) || k.Created != rfc3339(t0) || k.Revoked || k.RevokedAt != nil {
			t.Fatalf("new key %+v: %v", k, err)
		}
		if r.header.Get("Location") != "keys/"+k.KeyID || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("headers %v", r.header)
		}
		// The store knows the key by its hash, and never shows the hash.
		rec, err := e.st.tenants.LookupKey(t.Context(), apikey.Hash(k.Key))
		if err != nil || rec.TenantID != "acme" || rec.KeyID != k.KeyID {
			t.Fatalf("LookupKey: %+v, %v", rec, err)
		}
		e.clock.Advance(time.Second) // listed in order of creation
		e.do("POST", "/tenants/acme/keys", "{}").want(t, http.StatusCreated)
		list := e.do("GET", "/tenants/acme/keys", "").want(t, 200)
		for _, secret := range []string{rec.Hash, k.Key, `"hash"`, `"key"`} {
			if strings.Contains(string(list.body), secret) {
				t.Errorf("the listing shows %s: %s", secret, list.body)
			}
		}
		var keys struct{ Keys []keyBody }
		list.json(t, &keys)
		if len(keys.Keys) != 2 || keys.Keys[0].KeyID != k.KeyID {
			t.Fatalf("keys %+v", keys)
		}

		revokeKey(t, e, k.Key, k.KeyID)
	})
}

// revokeKey revokes a key, again, and purges it.
func revokeKey(t *testing.T, e *env, raw, keyID string) {
	e.clock.Advance(time.Hour)
	at := rfc3339(e.clock.Time())
	var revoked keyBody
	e.do("DELETE", "/tenants/acme/keys/"+keyID, "").want(t, 200).json(t, &revoked)
	if !revoked.Revoked || revoked.RevokedAt == nil || *revoked.RevokedAt != at {
		t.Fatalf("revoked %+v", revoked)
	}
	if _, err := e.st.tenants.LookupKey(t.Context(), apikey.Hash(raw)); !errors.Is(err, store.ErrRevoked) {
		t.Fatalf("LookupKey of a revoked key: %v", err)
	}
	e.clock.Advance(time.Hour) // revoking again changes nothing
	var again keyBody
	e.do("DELETE", "/tenants/acme/keys/"+keyID, "").want(t, 200).json(t, &again)
	if *again.RevokedAt != at {
		t.Errorf("revoked again at %s", *again.RevokedAt)
	}
	var one keyBody
	e.do("GET", "/tenants/acme/keys/"+keyID, "").want(t, 200).json(t, &one)
	if !one.Revoked {
		t.Errorf("GET key %+v", one)
	}
	e.do("DELETE", "/tenants/acme/keys/"+keyID+"?purge=true", "").want(t, http.StatusNoContent)
	e.do("GET", "/tenants/acme/keys/"+keyID, "").problem(t, 404, "not-found", "")
}

func TestTooManyKeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		var last string
		for range store.MaxKeysPerTenant {
			_, last = e.issueKey("acme")
		}
		before := e.snapshot()
		e.do("POST", "/tenants/acme/keys", "").problem(t, http.StatusConflict, "too-many-keys", "")
		if e.snapshot() != before {
			t.Fatal("a refused key was stored")
		}
		e.do("DELETE", "/tenants/acme/keys/"+last, "").want(t, 200)
		e.do("POST", "/tenants/acme/keys", "").problem(t, http.StatusConflict, "too-many-keys", "") // revoked keys count
		e.do("DELETE", "/tenants/acme/keys/"+last+"?purge=true", "").want(t, http.StatusNoContent)
		e.issueKey("acme")
	})
}

// TestKeyIDCollision draws a key id the tenant already has: another is drawn.
func TestKeyIDCollision(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.create("acme", acme)
	first := apikey.New()
	same, _ := apikey.Parse("elk_" + first.ID() + "_" + strings.Repeat("A", 43))
	e.newKeys = []apikey.Key{first, same}
	e.issueKey("acme")
	_, id := e.issueKey("acme")
	if id == first.ID() {
		t.Fatal("a key id was issued twice")
	}
}

// TestIssuedKeyAuthenticates issues a key through the API and presents it to the gate
// (the authorizer's core) with its configuration cache on: it is accepted; once
// revoked it is still accepted from the cache, and refused once the cache time has
// passed.
func TestIssuedKeyAuthenticates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		raw, keyID := e.issueKey("acme")
		const ttl = 10 * time.Second
		g := e.gate(ttl, "")
		if res := e.check(g, raw, "GET", "/orders"); res.Status != gate.Allowed || res.TenantID != "acme" {
			t.Fatalf("a new key: %+v", res)
		}
		e.do("DELETE", "/tenants/acme/keys/"+keyID, "").want(t, 200)
		if res := e.check(g, raw, "GET", "/orders"); res.Status != gate.Allowed {
			t.Fatalf("within the cache time: %+v", res)
		}
		e.clock.Advance(ttl + time.Microsecond)
		if res := e.check(g, raw, "GET", "/orders"); res.Status != gate.Unauthorized {
			t.Fatalf("after the cache time: %+v", res)
		}
		if res := e.check(e.gate(-1, ""), raw, "GET", "/orders"); res.Status != gate.Unauthorized {
			t.Fatalf("an uncached gate: %+v", res)
		}
		// A deleted tenant's keys go with it.
		raw2, _ := e.issueKey("acme")
		if res := e.check(e.gate(-1, ""), raw2, "GET", "/orders"); res.Status != gate.Allowed {
			t.Fatalf("second key: %+v", res)
		}
		etag := e.do("GET", "/tenants/acme", "").want(t, 200).header.Get("ETag")
		e.do("DELETE", "/tenants/acme", "", "If-Match", etag).want(t, http.StatusNoContent)
		if res := e.check(e.gate(-1, ""), raw2, "GET", "/orders"); res.Status != gate.Unauthorized {
			t.Fatalf("a key of a deleted tenant: %+v", res)
		}
		if _, err := e.st.tenants.LookupKey(t.Context(), apikey.Hash(raw2)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("LookupKey after delete: %v", err)
		}
	})
}

// TestKeyWithAnEmptyListOfRules: POST /tenants/{id}/keys with {"rules": []} issues a
// key without own rules, as {} does; docs/openapi.yaml takes that body (env.do
// validates every 2xx request against it: it said minItems 1 while the handler
// answered 201).
func TestKeyWithAnEmptyListOfRules(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.create("acme", acme)
	var k keyBody
	e.do("POST", "/tenants/acme/keys", `{"rules": []}`).want(t, http.StatusCreated).json(t, &k)
	rec, err := e.st.tenants.LookupKey(t.Context(), apikey.Hash(k.Key))
	if err != nil || rec.KeyID != k.KeyID || rec.Rules != nil {
		t.Fatalf("LookupKey: %+v, %v; want the key, without own rules", rec, err)
	}
	if got := e.do("GET", "/tenants/acme/keys/"+k.KeyID, "").want(t, 200); strings.Contains(string(got.body), `"rules"`) {
		t.Errorf("GET key %s: want no rules, as for a key issued without any", got.body)
	}
}
