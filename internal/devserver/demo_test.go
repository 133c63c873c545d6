package devserver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/internal/devserver"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const t0 = int64(1_798_761_600_000_000) // 2027-01-01T00:00:00Z in microseconds

// TestEnsureDemoTwiceLeavesOneKey: a second start on the same store issues a new demo
// key, deletes the first (it stops authenticating), and keeps a key someone else made.
func TestEnsureDemoTwiceLeavesOneKey(t *testing.T) {
	ctx := context.Background()
	st := memory.NewTenants()
	first, err := devserver.EnsureDemo(ctx, st, t0)
	if err != nil || first.Key == "" || !first.Created || first.Replaced != "" {
		t.Fatalf("first start: %+v, %v", first, err)
	}
	if len(first.Rules) != 1 || first.Rules[0].Limit != 5 {
		t.Errorf("first start: rules %+v, want the demo rule", first.Rules)
	}
	userKey, rec := apikey.Generate(devserver.DemoTenantID, t0+1)
	if err := st.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	second, err := devserver.EnsureDemo(ctx, st, t0+2)
	if err != nil || second.Key == "" || second.Key == first.Key || second.Created {
		t.Fatalf("second start: %+v, %v", second, err)
	}
	firstKey, _ := apikey.Parse(first.Key)
	if second.Replaced != firstKey.ID() {
		t.Errorf("second start replaced %q, want the first key's id %q", second.Replaced, firstKey.ID())
	}
	if _, err := st.LookupKey(ctx, apikey.Hash(first.Key)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the first demo key still authenticates: %v", err)
	}
	for _, k := range []string{second.Key, userKey.Reveal()} {
		if _, err := st.LookupKey(ctx, apikey.Hash(k)); err != nil {
			t.Errorf("key %s: %v", apikey.Prefix(mustParse(t, k).ID()), err)
		}
	}
	keys, err := st.ListKeys(ctx, devserver.DemoTenantID)
	if err != nil || len(keys) != 2 {
		t.Fatalf("after two starts the demo tenant has %d keys (%v), want 2: one demo key and the user's", len(keys), err)
	}
	got, _ := st.Get(ctx, devserver.DemoTenantID)
	if got.Metadata[devserver.DemoKeyMetadata] != mustParse(t, second.Key).ID() {
		t.Errorf("metadata %v, want %s = the second key's id", got.Metadata, devserver.DemoKeyMetadata)
	}
}

// TestEnsureDemoKeepsAnEditedTenant: rules an admin changed survive a start.
func TestEnsureDemoKeepsAnEditedTenant(t *testing.T) {
	ctx := context.Background()
	st := memory.NewTenants()
	if _, err := devserver.EnsureDemo(ctx, st, t0); err != nil {
		t.Fatal(err)
	}
	stored, _ := st.Get(ctx, devserver.DemoTenantID)
	next := stored.Clone()
	next.Rules[0].Limit = 50
	next, err := tenant.ApplyUpdate(stored, next, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Replace(ctx, next, stored.Version); err != nil {
		t.Fatal(err)
	}
	demo, err := devserver.EnsureDemo(ctx, st, t0+1)
	if err != nil || len(demo.Rules) != 1 || demo.Rules[0].Limit != 50 {
		t.Fatalf("%+v, %v: want the edited rule (limit 50)", demo, err)
	}
}

// TestEnsureDemoOnAFullTenant: a demo tenant full of keys that are not the demo key
// (left by earlier versions, which added one per start) starts without a key; one
// whose previous demo key is among them gets it replaced.
func TestEnsureDemoOnAFullTenant(t *testing.T) {
	ctx := context.Background()
	st := memory.NewTenants()
	first, err := devserver.EnsureDemo(ctx, st, t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < store.MaxKeysPerTenant; i++ {
		if _, rec := apikey.Generate(devserver.DemoTenantID, t0+int64(i)); st.PutKey(ctx, rec) != nil {
			t.Fatal("PutKey")
		}
	}
	replaced, err := devserver.EnsureDemo(ctx, st, t0+100)
	if err != nil || replaced.Key == "" || replaced.Full || replaced.Replaced != mustParse(t, first.Key).ID() {
		t.Fatalf("full tenant holding the demo key: %+v, %v; want it replaced", replaced, err)
	}
	// Take the demo key's place with another key: the tenant is full of others.
	if err := st.DeleteKey(ctx, devserver.DemoTenantID, mustParse(t, replaced.Key).ID()); err != nil {
		t.Fatal(err)
	}
	if _, rec := apikey.Generate(devserver.DemoTenantID, t0+200); st.PutKey(ctx, rec) != nil {
		t.Fatal("PutKey")
	}
	full, err := devserver.EnsureDemo(ctx, st, t0+300)
	if err != nil || full.Key != "" || !full.Full {
		t.Fatalf("full tenant: %+v, %v; want no key and Full", full, err)
	}
}

func mustParse(t *testing.T, raw string) apikey.Key {
	t.Helper()
	k, err := apikey.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
