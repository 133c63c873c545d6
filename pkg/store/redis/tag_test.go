package redis

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestTenantKeysShareASlot decides one request over every kind of counter a tenant has
// (tenant-wide, a route's, an API key's, an address's, after a reset), each with a
// sliding log, on the 3-node cluster; then asks the cluster (CLUSTER KEYSLOT) where
// each key the store wrote lives: all in one slot, and the keys are there. Other
// tenants spread over other slots.
func TestTenantKeysShareASlot(t *testing.T) {
	c := newTestClient(t, topologies[1].config(t))
	st := NewCounters(c, CountersConfig{})
	set := storetest.Set(t, nil, `{"name": "log", "algorithm": "sliding_log", "limit": 5, "period": "1m"}`)
	id := set.Rule(0).StateID()
	tenantID := "acme-" + rand.Text()
	keys := []string{
		tenant.CounterKey(tenantID, 0, "", tenant.IdentityTenant),
		tenant.CounterKey(tenantID, 0, "POST /orders", tenant.IdentityTenant),
		tenant.CounterKey(tenantID, 0, "", tenant.IdentityKey("ab12cd34")),
		tenant.CounterKey(tenantID, 0, "GET /health", tenant.IdentityIP("203.0.113.7")),
		tenant.CounterKey(tenantID, 1, "", tenant.IdentityTenant),
	}
	cs := make([]store.Counter, len(keys))
	for i, k := range keys {
		cs[i] = store.Counter{Key: k, Set: set}
	}
	ctx := context.Background()
	if err := st.Decide(ctx, cs, storetest.Trace(1, 1, 1, storetest.Burst)[0].At, 1, make([]limiter.Decision, len(cs))); err != nil {
		t.Fatalf("one decision over the tenant's counters on the cluster: %v", err)
	}
	slots := map[int64][]string{}
	for _, k := range keys {
		for _, name := range []string{luascript.HashKey(slotKey(k)), luascript.LogKey(slotKey(k), id)} {
			if n, err := c.Do(ctx, func(b rueidis.Builder) rueidis.Completed { return b.Exists().Key(name).Build() }).AsInt64(); err != nil || n != 1 {
				t.Fatalf("EXISTS %s: %d, %v; want the key the decision wrote", name, n, err)
			}
			slots[keySlot(t, c, name)] = append(slots[keySlot(t, c, name)], name)
		}
	}
	if len(slots) != 1 {
		t.Fatalf("the keys of tenant %s are in %d slots, want 1: %v", tenantID, len(slots), slots)
	}
	others := map[int64]bool{}
	for i := range 20 {
		others[keySlot(t, c, luascript.HashKey(slotKey(tenant.CounterKey(fmt.Sprint("tenant-", i), 0, "", tenant.IdentityTenant))))] = true
	}
	if len(others) < 10 {
		t.Fatalf("20 tenants share %d slots: the tag is not the tenant", len(others))
	}
}

// keySlot asks the cluster which hash slot name is in.
func keySlot(t *testing.T, c *Client, name string) int64 {
	t.Helper()
	slot, err := c.Do(context.Background(), func(b rueidis.Builder) rueidis.Completed {
		return b.ClusterKeyslot().Key(name).Build()
	}).AsInt64()
	if err != nil {
		t.Fatalf("CLUSTER KEYSLOT %s: %v", name, err)
	}
	return slot
}

// TestSlotKey: the tag is the counter key's tenant; a key of another form is its own
// tag without its braces; the key follows the tag unchanged.
func TestSlotKey(t *testing.T) {
	for key, want := range map[string]string{
		"c1|4:acme|0|0:|1:t":   "{acme}c1|4:acme|0|0:|1:t",
		"c1|6:{acme}|0|0:|1:t": "{c1|6:acme|0|0:|1:t}c1|6:{acme}|0|0:|1:t",
		"plain":                "{plain}plain",
		"a{b}c":                "{abc}a{b}c",
		"{}":                   "{_}{}",
	} {
		if got := slotKey(key); got != want {
			t.Errorf("slotKey(%q) = %q, want %q", key, got, want)
		}
	}
}
