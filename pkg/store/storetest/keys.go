package storetest

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// created is the creation instant of the suite's keys, microseconds.
const created int64 = 1_781_092_800_000_000

func mustPutKey(t *testing.T, s store.Tenants, tenantID string, at int64) (apikey.Key, apikey.Record) {
	t.Helper()
	k, rec := apikey.Generate(tenantID, at)
	if err := s.PutKey(t.Context(), rec); err != nil {
		t.Fatalf("PutKey for %s: %v", tenantID, err)
	}
	return k, rec
}

func testKeys(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	mustCreate(t, s, Tenant("other"))
	k1, r1 := mustPutKey(t, s, "acme", created+2)
	_, r2 := mustPutKey(t, s, "acme", created+1)
	_, r3 := mustPutKey(t, s, "other", created)

	got, err := s.LookupKey(ctx, apikey.Hash(k1.Reveal()))
	if err != nil || !reflect.DeepEqual(got, r1) {
		t.Fatalf("LookupKey of a generated key = %+v, %v; want %+v", got, err, r1)
	}
	keys, err := s.ListKeys(ctx, "acme")
	if err != nil || !reflect.DeepEqual(keys, []apikey.Record{r2, r1}) {
		t.Fatalf("ListKeys = %+v, %v; want the two keys of acme, oldest first", keys, err)
	}
	if keys, _ := s.ListKeys(ctx, "other"); !reflect.DeepEqual(keys, []apikey.Record{r3}) {
		t.Errorf("ListKeys(other) = %+v", keys)
	}
	_, err = s.ListKeys(ctx, "nobody")
	wantErr(t, "ListKeys of a missing tenant", err, store.ErrNotFound)

	wantErr(t, "PutKey of a taken hash", s.PutKey(ctx, r1), store.ErrExists)
	_, fresh := apikey.Generate("acme", created)
	sameID := fresh
	sameID.KeyID, sameID.Prefix = r1.KeyID, r1.Prefix
	wantErr(t, "PutKey of a taken key id", s.PutKey(ctx, sameID), store.ErrExists)
	fresh.TenantID = "nobody"
	wantErr(t, "PutKey for a missing tenant", s.PutKey(ctx, fresh), store.ErrNotFound)
	bad := fresh
	bad.TenantID, bad.Hash = "acme", "not-a-hash"
	if err := s.PutKey(ctx, bad); err == nil || errors.Is(err, store.ErrExists) {
		t.Errorf("PutKey of an invalid record: %v", err)
	}
	if keys, _ := s.ListKeys(ctx, "acme"); len(keys) != 2 {
		t.Errorf("failed PutKeys left %d keys", len(keys))
	}
}

// testKeyNearMisses looks up keys that differ from a stored one, and hashes that were
// never stored or are malformed: each fails with ErrNotFound.
func testKeyNearMisses(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	k, _ := mustPutKey(t, s, "acme", created)
	raw := k.Reveal()
	flip := func(i int) string {
		c := byte('A')
		if raw[i] == 'A' {
			c = 'B'
		}
		return raw[:i] + string(c) + raw[i+1:]
	}
	misses := map[string]string{
		"last character changed":   apikey.Hash(flip(len(raw) - 1)),
		"secret's first changed":   apikey.Hash(flip(13)),
		"key id changed":           apikey.Hash(raw[:4] + "zzzzzzzz" + raw[12:]),
		"never stored":             apikey.Hash(apikey.New().Reveal()),
		"hash one digit changed":   k.Hash()[:63] + string("01"[(k.Hash()[63]-'0'+1)%2]),
		"upper-case hash":          strings.ToUpper(k.Hash()),
		"hash too short":           k.Hash()[:63],
		"empty":                    "",
		"the raw key itself":       raw,
		"separator-laden garbage":  "key#" + k.Hash(),
		"hash of the trimmed key":  apikey.Hash(raw[:len(raw)-1]),
		"hash with a trailing new": k.Hash() + "\n",
	}
	for name, hash := range misses {
		got, err := s.LookupKey(ctx, hash)
		if !errors.Is(err, store.ErrNotFound) || !reflect.DeepEqual(got, apikey.Record{}) {
			t.Errorf("%s: LookupKey = %+v, %v; want ErrNotFound", name, got, err)
		}
	}
}

// testKeysNotStoredRaw scans everything the store holds for the raw keys.
func testKeysNotStoredRaw(t *testing.T, cfg TenantsConfig) {
	if cfg.Dump == nil {
		t.Fatal("Config.Dump is required: the suite checks that no raw key is stored")
	}
	s := cfg.New(t)
	mustCreate(t, s, Tenant("acme"))
	var secrets []string
	for range 3 {
		k, rec := mustPutKey(t, s, "acme", created)
		secrets = append(secrets, k.Reveal(), k.Reveal()[13:])
		if err := s.RevokeKey(t.Context(), "acme", rec.KeyID, created+1); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := mustPutKey(t, s, "acme", created)
	secrets = append(secrets, k.Reveal(), k.Reveal()[13:])
	values := cfg.Dump(t, s)
	if !slices.ContainsFunc(values, func(v string) bool { return strings.Contains(v, k.Hash()) }) {
		t.Fatalf("Dump holds no key hash: it does not see the key records (%d values)", len(values))
	}
	for _, v := range values {
		for _, secret := range secrets {
			if strings.Contains(v, secret) {
				t.Fatalf("a raw key is stored: %.80q...", v)
			}
		}
	}
}

func testRevokeDelete(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	k, rec := mustPutKey(t, s, "acme", created)
	keep, _ := mustPutKey(t, s, "acme", created+1)
	if err := s.RevokeKey(ctx, "acme", rec.KeyID, created+5); err != nil {
		t.Fatal(err)
	}
	_, err := s.LookupKey(ctx, k.Hash())
	wantErr(t, "LookupKey of a revoked key", err, store.ErrRevoked)
	wantErr(t, "LookupKey of a revoked key", err, store.ErrNotFound)
	if err := s.RevokeKey(ctx, "acme", rec.KeyID, created+9); err != nil {
		t.Errorf("revoking again: %v", err)
	}
	keys, _ := s.ListKeys(ctx, "acme")
	if len(keys) != 2 || !keys[0].Revoked || keys[0].RevokedAt != created+5 || keys[1].Revoked {
		t.Errorf("ListKeys after revoking = %+v; want the first revoked at %d", keys, created+5)
	}
	if _, err := s.LookupKey(ctx, keep.Hash()); err != nil {
		t.Errorf("revoking one key revoked another: %v", err)
	}
	wantErr(t, "RevokeKey of an unknown key", s.RevokeKey(ctx, "acme", "zzzzzzzz", created), store.ErrNotFound)
	wantErr(t, "RevokeKey under another tenant", s.RevokeKey(ctx, "other", rec.KeyID, created), store.ErrNotFound)

	if err := s.DeleteKey(ctx, "acme", rec.KeyID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "DeleteKey again", s.DeleteKey(ctx, "acme", rec.KeyID), store.ErrNotFound)
	_, err = s.LookupKey(ctx, k.Hash())
	wantErr(t, "LookupKey of a deleted key", err, store.ErrNotFound)
	if keys, _ := s.ListKeys(ctx, "acme"); len(keys) != 1 || keys[0].KeyID != keep.ID() {
		t.Errorf("ListKeys after DeleteKey = %+v", keys)
	}

	// Deleting the tenant deletes its keys: a new tenant of the same id does not
	// inherit them.
	if err := s.Delete(ctx, "acme", 1); err != nil {
		t.Fatal(err)
	}
	_, err = s.LookupKey(ctx, keep.Hash())
	wantErr(t, "LookupKey after deleting the tenant", err, store.ErrNotFound)
	mustCreate(t, s, Tenant("acme"))
	if keys, err := s.ListKeys(ctx, "acme"); err != nil || len(keys) != 0 {
		t.Errorf("a re-created tenant has keys %+v, %v", keys, err)
	}
	_, err = s.LookupKey(ctx, keep.Hash())
	wantErr(t, "LookupKey after re-creating the tenant", err, store.ErrNotFound)
}

func testTooManyKeys(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	var first apikey.Record
	for i := range store.MaxKeysPerTenant {
		_, rec := mustPutKey(t, s, "acme", created+int64(i))
		if i == 0 {
			first = rec
		}
	}
	_, extra := apikey.Generate("acme", created)
	wantErr(t, "PutKey beyond the bound", s.PutKey(ctx, extra), store.ErrTooManyKeys)
	if err := s.DeleteKey(ctx, "acme", first.KeyID); err != nil {
		t.Fatal(err)
	}
	if err := s.PutKey(ctx, extra); err != nil {
		t.Errorf("PutKey after deleting one: %v", err)
	}
}

// testConcurrentKeys adds keys to one tenant from several goroutines: none is lost.
func testConcurrentKeys(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	const n = 10
	recs := make([]apikey.Record, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, recs[i] = apikey.Generate("acme", created+int64(i))
			errs[i] = s.PutKey(ctx, recs[i])
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("PutKey %d: %v", i, err)
		}
	}
	keys, err := s.ListKeys(ctx, "acme")
	if err != nil || len(keys) != n {
		t.Fatalf("ListKeys: %d keys, %v; want %d", len(keys), err, n)
	}
	for _, rec := range recs {
		if _, err := s.LookupKey(ctx, rec.Hash); err != nil {
			t.Errorf("key %s: %v", rec.KeyID, err)
		}
	}
}

// testDeleteRacingPutKey deletes a tenant while keys are added to it: afterwards, no key
// of the deleted tenant authenticates.
func testDeleteRacingPutKey(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	mustPutKey(t, s, "acme", created)
	const n = 8
	recs := make([]apikey.Record, n)
	var wg sync.WaitGroup
	for i := range n {
		_, recs[i] = apikey.Generate("acme", created+int64(i))
		wg.Go(func() { _ = s.PutKey(ctx, recs[i]) }) // ErrNotFound once the tenant is gone
	}
	var delErr error
	wg.Go(func() {
		for range 20 { // a Delete racing key writes may give up after its own retries: try again
			if delErr = s.Delete(ctx, "acme", 1); delErr == nil {
				return
			}
		}
	})
	wg.Wait()
	if delErr != nil {
		t.Fatalf("Delete: %v", delErr)
	}
	for _, rec := range recs {
		if got, err := s.LookupKey(ctx, rec.Hash); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("key %s of the deleted tenant: %+v, %v", rec.KeyID, got, err)
		}
	}
}
