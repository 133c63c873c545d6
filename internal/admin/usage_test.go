package admin_test

import (
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

const shop = `{"rules": [
	{"name": "daily", "algorithm": "fixed_window", "limit": 10, "period": "day"},
	{"name": "burst", "algorithm": "token_bucket", "limit": 5, "period": "1s", "scope": "key"}],
  "timezone": "Asia/Tokyo",
  "routes": [
	{"method": "POST", "resource": "/orders", "rules": [{"name": "orders", "algorithm": "sliding_window", "limit": 3, "period": "1m"}]},
	{"method": "GET", "resource": "/health", "anonymous": true, "rules": [{"name": "health", "algorithm": "fixed_window", "limit": 4, "period": "1s"}]}]}`

// TestUsage spends through the gate, with a key and as anonymous clients, and reads each
// rule's counters back through usage under the same counter keys: daily and orders are
// the tenant's (one counter), burst is the key's, health the client address's.
func TestUsage(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("shop", shop)
		raw, keyID := e.issueKey("shop")
		g := e.gate(-1, "shop")
		for range 2 {
			if res := e.check(g, raw, "POST", "/orders"); res.Status != gate.Allowed || res.Route != "POST /orders" {
				t.Fatalf("spend: %+v", res)
			}
		}
		u := e.usage("shop", keyID)
		// daily, burst and orders; health counts per address, and no ip was given.
		if u.KeyID != keyID || u.IP != "" || u.Timezone != "Asia/Tokyo" || u.At != rfc3339(t0) || len(u.Rules) != 3 || len(u.Pending) != 0 {
			t.Fatalf("usage %+v", u)
		}
		// t0 is 21:00 in Tokyo: the day ends at 15:00 UTC.
		daily := u.Rules[u.rule(t, "", "daily")]
		if daily.Used != 2 || daily.Remaining != 8 || daily.Capacity != 10 || daily.Reset != "2026-01-10T15:00:00Z" ||
			daily.ResetLocal != "2026-01-11T00:00:00+09:00" || daily.WindowStart != "2026-01-09T15:00:00Z" {
			t.Errorf("daily %+v", daily)
		}
		burst := u.Rules[u.rule(t, "", "burst")]
		if burst.Used != 2 || burst.Remaining != 3 || burst.Reset != "2026-01-10T12:00:00.4Z" || burst.ResetLocal != "" || burst.WindowEnd != "" {
			t.Errorf("burst %+v", burst) // two tokens refill in 400ms
		}
		if orders := u.Rules[u.rule(t, "POST /orders", "orders")]; orders.Used != 2 || orders.Remaining != 1 || orders.WindowStart != "2026-01-10T12:00:00Z" {
			t.Errorf("orders %+v", orders)
		}
		var tenantOnly usageBody
		e.do("GET", "/tenants/shop/usage", "").want(t, 200).json(t, &tenantOnly)
		if len(tenantOnly.Rules) != 2 || tenantOnly.Rules[tenantOnly.rule(t, "", "daily")].Used != 2 {
			t.Errorf("usage without an identity: the tenant's counters, daily and orders: %+v", tenantOnly.Rules)
		}

		checkAnonymousUsage(t, e, g)
		// The tenant's daily counts the anonymous requests too; the key's burst is its own.
		u = e.usage("shop", keyID)
		if d, b := u.Rules[u.rule(t, "", "daily")], u.Rules[u.rule(t, "", "burst")]; d.Used != 6 || b.Used != 2 {
			t.Errorf("after 4 anonymous requests: daily %+v (want 6 used), burst %+v (want 2)", d, b)
		}
	})
}

// checkAnonymousUsage spends as anonymous clients, counted per IPv4 address and per
// IPv6 /64, and reads their usage: the tenant-wide rules and the anonymous route only.
func checkAnonymousUsage(t *testing.T, e *env, g *gate.Gate) {
	for _, ip := range []string{"203.0.113.9", "203.0.113.9", "2001:db8:1:2::1", "2001:db8:1:2::ffff"} {
		res, err := g.Check(t.Context(), gate.Request{Method: "GET", Resource: "/health", SourceIP: ip})
		if err != nil || res.Status != gate.Allowed {
			t.Fatalf("anonymous %s: %+v, %v", ip, res, err)
		}
	}
	for ip, want := range map[string]string{"203.0.113.9": "203.0.113.9", "2001:db8:1:2::abcd": "2001:db8:1:2::/64", "::ffff:203.0.113.9": "203.0.113.9"} {
		var a usageBody
		e.do("GET", "/tenants/shop/usage?ip="+ip, "").want(t, 200).json(t, &a)
		if a.IP != want || a.KeyID != "" || len(a.Rules) != 3 { // daily, burst, health: not the keyed route
			t.Fatalf("usage of %s: %+v", ip, a)
		}
		if h := a.Rules[a.rule(t, "GET /health", "health")]; h.Used != 2 {
			t.Errorf("health of %s: %+v", ip, h)
		}
		// A key-scope rule counts a request without a key under its address.
		if b := a.Rules[a.rule(t, "", "burst")]; b.Used != 2 {
			t.Errorf("burst of %s: %+v", ip, b)
		}
	}
}

// TestUsageOfRevokedKey: a revoked key keeps its counters, and usage reports them.
func TestUsageOfRevokedKey(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.create("shop", shop)
	raw, keyID := e.issueKey("shop")
	e.check(e.gate(-1, ""), raw, "GET", "/")
	e.do("DELETE", "/tenants/shop/keys/"+keyID, "").want(t, 200)
	if u := e.usage("shop", keyID); u.Rules[0].Used != 1 {
		t.Errorf("usage %+v", u.Rules[0])
	}
}

// TestUsageOfAKeyWithItsOwnRules: a key issued with rules of its own is limited
// by them (docs/design.md, "Tenants, keys and the admin API": "each replacing the
// key-scope rule of its name ... for that key's counters only"), and
// GET /tenants/{id}/usage?key_id= "peeks at every rule's counters" of that key. The
// usage read must report the rules the key is limited by: here its own per-key
// bucket of 2 (not the tenant's of 10), used up by the 2 requests the gate allowed.
func TestUsageOfAKeyWithItsOwnRules(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("vip", `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"},
			{"name": "per-key", "algorithm": "token_bucket", "limit": 10, "period": "1m", "scope": "key"}]}`)
		var k struct {
			Key   string `json:"key"`
			KeyID string `json:"key_id"`
		}
		e.do("POST", "/tenants/vip/keys", `{"rules": [{"name": "per-key", "algorithm": "token_bucket", "limit": 2, "period": "1m"}]}`).
			want(t, 201).json(t, &k)
		g := e.gate(-1, "")
		for i := range 2 {
			if res := e.check(g, k.Key, "GET", "/x"); res.Status != gate.Allowed {
				t.Fatalf("request %d: %+v", i+1, res)
			}
		}
		if res := e.check(g, k.Key, "GET", "/x"); res.Status != gate.Denied || res.Rule != "per-key" || res.Decision.Limit != 2 {
			t.Fatalf("the third request, over the key's own bucket of 2: %+v", res)
		}
		u := e.usage("vip", k.KeyID)
		pk := u.Rules[u.rule(t, "", "per-key")]
		if pk.Rule.Limit != 2 || pk.Capacity != 2 || pk.Used != 2 || pk.Remaining != 0 {
			t.Errorf("usage of the key's own per-key rule: limit %d, capacity %d, used %d, remaining %d; want 2, 2, 2, 0 (the gate denies its next request)",
				pk.Rule.Limit, pk.Capacity, pk.Used, pk.Remaining)
		}
		if res := e.check(g, k.Key, "GET", "/x"); res.Status != gate.Denied {
			t.Errorf("after the usage read, the key's request is %v, want denied: the read changed its counter", res.Status)
		}
	})
}
