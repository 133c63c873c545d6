package redis

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// marker stands for stored bytes; no error may quote it.
const marker = "SECRET-MARKER"

// hset sets a field of a hash on node.
func hset(t *testing.T, node *Client, key, field, value string) {
	t.Helper()
	if err := node.Do(t.Context(), func(b rueidis.Builder) rueidis.Completed {
		return b.Hset().Key(key).FieldValue().FieldValue(field, value).Build()
	}).Error(); err != nil {
		t.Fatal(err)
	}
}

// Bytes stored in a tenant's hash (its version, its document), read back by the store
// on a real Redis, make errors that keep their identity and do not quote them.
func TestStoredTenantBytesReachNoError(t *testing.T) {
	f := newFixture(t, topologies[0])
	set := func(key, field, value string) { t.Helper(); hset(t, f.nodes[0], key, field, value) }
	id := "acme"
	tenantKey := "{" + f.prefix + "}tenant:" + id
	if _, err := f.tenants.Create(t.Context(), tenant.Tenant{ID: id, Rules: []limiter.Rule{{Algorithm: limiter.TokenBucket, Limit: 10, Period: limiter.Every(1e9)}}}); err != nil {
		t.Fatal(err)
	}
	set(tenantKey, "version", marker)
	if _, err := f.tenants.Get(t.Context(), id); err == nil || strings.Contains(err.Error(), marker) || !errors.Is(err, strconv.ErrSyntax) {
		t.Errorf("Get of a tenant whose version is the marker: %v, want strconv.ErrSyntax without the marker", err)
	}
	set(tenantKey, "version", "1")
	for _, doc := range []string{`{"id": "acme", "fail_mode": "` + marker + `"}`, `{"id": "acme", "rules": [` + marker + `]}`, `{"id": 7` + marker} {
		set(tenantKey, "doc", doc)
		if _, err := f.tenants.Get(t.Context(), id); err == nil || strings.Contains(err.Error(), marker) {
			t.Errorf("Get of the document %s: %v, want an error without the marker", doc, err)
		}
	}
}

// A script that answers a counter's stored state where integers belong, on a real
// Redis, is an ErrMalformedReply that does not quote it, for Decide and for Eval.
func TestStoredCounterBytesReachNoError(t *testing.T) {
	node := newTestClient(t, topologies[0].config(t))

	st := NewCounters(node, CountersConfig{})
	st.lua.DecideScript = luascript.NewScript(`return {redis.call('HGET', KEYS[1], 'state'), 1, 0, 0, 0}`)
	st.bucket = st.lua.DecideScript
	key := storetest.Key(t, "k")
	hset(t, node, luascript.HashKey(slotKey(key)), "state", marker)
	cs := []store.Counter{{Key: key, Set: storetest.Set(t, nil, `{"algorithm": "fixed_window", "limit": 3, "period": "1m"}`)}}
	err := st.Decide(t.Context(), cs, 1, 1, make([]limiter.Decision, 1))
	if err == nil || strings.Contains(err.Error(), marker) || !errors.Is(err, luascript.ErrMalformedReply) {
		t.Errorf("Decide answered the stored state: %v, want ErrMalformedReply without the marker", err)
	}
	n, err := respConn{st.c}.Eval(t.Context(), luascript.NewScript(`return redis.call('HGET', KEYS[1], 'state')`), []string{luascript.HashKey(slotKey(key))})
	if err == nil || strings.Contains(err.Error(), marker) {
		t.Errorf("Eval answered the stored state: %d, %v, want an error without the marker", n, err)
	}
	node.Do(t.Context(), func(b rueidis.Builder) rueidis.Completed { return b.Del().Key(luascript.HashKey(slotKey(key))).Build() })
}
