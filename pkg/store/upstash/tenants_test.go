package upstash

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// newClient connects to the local Upstash-compatible server in front of a real
// redis-server that `make test` starts, with key locking, as production sends: the
// server refuses a script that touches a key it did not declare.
func newClient(t *testing.T) *upstashrest.Client {
	t.Helper()
	url, token := testenv.UpstashURL(t)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token, KeyLocking: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newTestTenants returns a Tenants under a key prefix of its own, whose keys are deleted
// after the test.
func newTestTenants(t *testing.T) store.Tenants {
	t.Helper()
	return newTestTenantsOn(t, newClient(t))
}

// newTestTenantsOn is newTestTenants over the client c.
func newTestTenantsOn(t *testing.T, c *upstashrest.Client) *Tenants {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	prefix := "el:t:test-" + hex.EncodeToString(b[:]) + ":"
	s := NewTenants(c, TenantsConfig{Prefix: prefix})
	testStores.Store(s, testStore{c, luascript.Layout{Prefix: prefix}})
	t.Cleanup(func() {
		for _, key := range scanKeys(t, s) {
			if _, err := c.Do(context.Background(), "DEL", key); err != nil {
				t.Errorf("DEL %s: %v", key, err)
			}
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.RunTenants(t, storetest.TenantsConfig{New: newTestTenants, Dump: dump, DropTenant: dropTenant})
}

// testStore is a test's Tenants' client and layout, by its Tenants (testStores).
type testStore struct {
	c *upstashrest.Client
	l luascript.Layout
}

var testStores sync.Map // *Tenants -> testStore

func testStoreOf(s *Tenants) testStore {
	ts, _ := testStores.Load(s)
	return ts.(testStore)
}

// scanKeys lists the store's Redis keys with SCAN.
func scanKeys(t *testing.T, s *Tenants) []string {
	var keys []string
	cursor := "0"
	for range 10000 {
		r, err := testStoreOf(s).c.Do(context.Background(), "SCAN", cursor, "MATCH", testStoreOf(s).l.Prefix+"*", "COUNT", 1000)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := r.Array()
		if err != nil || len(parts) != 2 {
			t.Fatalf("SCAN reply %v: %v", r, err)
		}
		cursor, _ = parts[0].String()
		batch, err := stringsOf(parts[1], false)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, batch...)
		if cursor == "0" {
			return keys
		}
	}
	t.Fatal("SCAN never ended")
	return nil
}

// dump reads every key of the store with SCAN and the read command of its type.
func dump(t *testing.T, st store.Tenants) []string {
	s := st.(*Tenants)
	var out []string
	for _, key := range scanKeys(t, s) {
		out = append(out, key)
		typ, err := testStoreOf(s).c.Do(t.Context(), "TYPE", key)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := typ.String()
		read := map[string][]any{
			"string": {"GET", key}, "hash": {"HGETALL", key}, "zset": {"ZRANGE", key, 0, -1, "WITHSCORES"},
		}[name]
		if read == nil {
			t.Fatalf("key %s has the unexpected type %q", key, name)
		}
		r, err := testStoreOf(s).c.Do(t.Context(), read...)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := r.String(); err == nil {
			out = append(out, v)
			continue
		}
		vals, err := stringsOf(r, false)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out = append(out, vals...)
	}
	return out
}

// dropTenant deletes the tenant's hash alone.
func dropTenant(t *testing.T, st store.Tenants, id string) {
	s := st.(*Tenants)
	if _, err := testStoreOf(s).c.Do(t.Context(), "DEL", testStoreOf(s).l.Tenant(id)); err != nil {
		t.Fatal(err)
	}
}
