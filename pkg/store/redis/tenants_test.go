package redis

import (
	"context"
	"crypto/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// fixture is a Tenants under a prefix of its own on one topology, with a client per
// node to read and delete its keys.
type fixture struct {
	tenants *Tenants
	prefix  string
	nodes   []*Client
}

func newFixture(t *testing.T, topo topology) *fixture {
	t.Helper()
	f := &fixture{prefix: "el:t:test-" + rand.Text() + ":"}
	var err error
	if f.tenants, err = NewTenants(newTestClient(t, topo.config(t)), TenantsConfig{Prefix: f.prefix}); err != nil {
		t.Fatal(err)
	}
	for _, a := range topo.nodes(t) {
		f.nodes = append(f.nodes, newTestClient(t, Config{Addrs: []string{a}}))
	}
	t.Cleanup(func() {
		for _, kv := range f.keys(t) {
			if err := kv.node.Do(context.Background(), func(b rueidis.Builder) rueidis.Completed { return b.Del().Key(kv.key).Build() }).Error(); err != nil {
				t.Errorf("DEL %s: %v", kv.key, err)
			}
		}
	})
	return f
}

type nodeKey struct {
	node *Client
	key  string
}

// keys lists the store's keys on every node with SCAN.
func (f *fixture) keys(t *testing.T) []nodeKey {
	var out []nodeKey
	for _, node := range f.nodes {
		cursor := uint64(0)
		for range 10000 {
			entry, err := node.Do(context.Background(), func(b rueidis.Builder) rueidis.Completed {
				return b.Scan().Cursor(cursor).Match("{" + f.prefix + "}*").Count(1000).Build()
			}).AsScanEntry()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range entry.Elements {
				out = append(out, nodeKey{node, k})
			}
			if cursor = entry.Cursor; cursor == 0 {
				break
			}
		}
	}
	return out
}

// drop deletes key on the node that holds it.
func (f *fixture) drop(t *testing.T, key string) {
	for _, kv := range f.keys(t) {
		if kv.key == key {
			if err := kv.node.Do(t.Context(), func(b rueidis.Builder) rueidis.Completed { return b.Del().Key(key).Build() }).Error(); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no key %s", key)
}

// dump reads every key of the store with the read command of its type.
func (f *fixture) dump(t *testing.T) []string {
	var out []string
	for _, kv := range f.keys(t) {
		do := func(build func(b rueidis.Builder) rueidis.Completed) rueidis.RedisResult {
			return kv.node.Do(context.Background(), build)
		}
		typ, err := do(func(b rueidis.Builder) rueidis.Completed { return b.Type().Key(kv.key).Build() }).ToString()
		if err != nil {
			t.Fatal(err)
		}
		var vals []string
		switch typ {
		case "string":
			var v string
			v, err = do(func(b rueidis.Builder) rueidis.Completed { return b.Get().Key(kv.key).Build() }).ToString()
			vals = []string{v}
		case "hash":
			var m map[string]string
			m, err = do(func(b rueidis.Builder) rueidis.Completed { return b.Hgetall().Key(kv.key).Build() }).AsStrMap()
			for k, v := range m {
				vals = append(vals, k, v)
			}
		case "zset":
			vals, err = do(func(b rueidis.Builder) rueidis.Completed { return b.Zrange().Key(kv.key).Min("0").Max("-1").Build() }).AsStrSlice()
		default:
			t.Fatalf("key %s has the unexpected type %q", kv.key, typ)
		}
		if err != nil {
			t.Fatalf("%s: %v", kv.key, err)
		}
		out = append(append(out, kv.key), vals...)
	}
	return out
}

func TestTenantsConformance(t *testing.T) {
	for _, topo := range topologies {
		t.Run(topo.name, func(t *testing.T) {
			fixtures := map[store.Tenants]*fixture{}
			storetest.RunTenants(t, storetest.TenantsConfig{
				New: func(t *testing.T) store.Tenants {
					f := newFixture(t, topo)
					fixtures[f.tenants] = f
					return f.tenants
				},
				Dump: func(t *testing.T, s store.Tenants) []string { return fixtures[s].dump(t) },
				DropTenant: func(t *testing.T, s store.Tenants, id string) {
					fixtures[s].drop(t, "{"+fixtures[s].prefix+"}tenant:"+id)
				},
			})
		})
	}
}

func TestTenantsPrefixWithBraces(t *testing.T) {
	if _, err := NewTenants(nil, TenantsConfig{Prefix: "el:{t}:"}); err == nil || !strings.Contains(err.Error(), "brace") {
		t.Fatalf("a prefix with braces: %v, want an error naming the brace", err)
	}
}

// TestKeysShareASlot writes two tenants and a key record on the 3-node cluster, then
// asks the cluster (CLUSTER KEYSLOT) where each key of the store lives: all in one
// slot, the prefix's, as its scripts need.
func TestTenantKeysShareASlotToo(t *testing.T) {
	f := newFixture(t, topologies[1])
	ctx := t.Context()
	for _, id := range []string{"acme", "globex"} {
		if _, err := f.tenants.Create(ctx, storetest.Tenant(id)); err != nil {
			t.Fatal(err)
		}
	}
	_, rec := apikey.Generate("acme", 1_781_092_800_000_000)
	if err := f.tenants.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	keys := f.keys(t)
	slots := map[int64][]string{}
	for _, kv := range keys {
		slot, err := f.nodes[0].Do(ctx, func(b rueidis.Builder) rueidis.Completed { return b.ClusterKeyslot().Key(kv.key).Build() }).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		slots[slot] = append(slots[slot], kv.key)
	}
	if len(keys) != 5 || len(slots) != 1 {
		t.Fatalf("the store's %d keys (want 5: 2 tenants, a key list, a record, the ids) are in %d slots: %v", len(keys), len(slots), slots)
	}
}

// TestLookupRoundTrips reads the commands a key's lookup writes: one GET for the
// record and one HMGET for its tenant, on a server and on a cluster. No script reads
// them, since a script must declare every key it touches and the tenant's hash is
// named in the record.
func TestLookupRoundTrips(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		f := newFixture(t, topo)
		if _, err := f.tenants.Create(t.Context(), storetest.Tenant("acme")); err != nil {
			t.Fatal(err)
		}
		k, want := apikey.Generate("acme", 1_781_092_800_000_000)
		if err := f.tenants.PutKey(t.Context(), want); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		cfg := topo.config(t)
		cfg.Dial = rec.dial
		ts, err := NewTenants(newTestClient(t, cfg), TenantsConfig{Prefix: f.prefix})
		if err != nil {
			t.Fatal(err)
		}
		rec.take(t)
		got, err := ts.LookupKey(t.Context(), k.Hash())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("LookupKey = %+v, %v", got, err)
		}
		if sent := rec.take(t); !slices.Equal(sent, []string{"GET"}) {
			t.Fatalf("LookupKey sent %v, want [GET]", sent)
		}
		if ten, err := ts.Get(t.Context(), "acme"); err != nil || ten.Version != 1 {
			t.Fatalf("Get = %+v, %v", ten, err)
		}
		if sent := rec.take(t); !slices.Equal(sent, []string{"HMGET"}) {
			t.Fatalf("Get sent %v, want [HMGET]", sent)
		}
	})
}
