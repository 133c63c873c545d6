package gate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

func TestIdentity(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.AnonymousTenant = "public" })
	if _, err := f.tenants.Create(context.Background(), mustTenant(t, `{"id": "gone", "status": "suspended", "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1m"}]}`)); err != nil {
		t.Fatal(err)
	}
	suspendedKey, _ := f.addKey(t, "gone")
	tests := []struct {
		name       string
		req        gate.Request
		wantStatus gate.Status
		wantTenant string
		wantID     string
		wantReason string
	}{
		{"valid key", gate.Request{Method: "GET", Resource: "/x", APIKey: f.key}, gate.Allowed, "acme", "k:" + f.keyID, "allowed"},
		{"malformed key", gate.Request{Method: "GET", Resource: "/x", APIKey: "not-a-key"}, gate.Unauthorized, "", "", "malformed API key"},
		{"unknown key", gate.Request{Method: "GET", Resource: "/x", APIKey: "elk_aaaaaaaa_" + strings.Repeat("A", 43)}, gate.Unauthorized, "", "", "unknown or revoked API key"},
		{"suspended tenant", gate.Request{Method: "GET", Resource: "/x", APIKey: suspendedKey}, gate.Unauthorized, "gone", "", "tenant suspended"},
		{"missing key, route not anonymous", gate.Request{Method: "GET", Resource: "/private", SourceIP: "192.0.2.1"}, gate.Unauthorized, "", "", "missing API key"},
		{"missing key, no such route", gate.Request{Method: "GET", Resource: "/nowhere", SourceIP: "192.0.2.1"}, gate.Unauthorized, "", "", "missing API key"},
		{"missing key, anonymous route", gate.Request{Method: "GET", Resource: "/health", SourceIP: "192.0.2.1"}, gate.Allowed, "public", "ip:192.0.2.1", "allowed"},
		{"missing key, anonymous v2 route key", gate.Request{Resource: "GET /health", SourceIP: "::ffff:192.0.2.1"}, gate.Allowed, "public", "ip:192.0.2.1", "allowed"},
		{"missing key, IPv6 per /64", gate.Request{Method: "GET", Resource: "/health", SourceIP: "2001:db8:1:2:3:4:5:6"}, gate.Allowed, "public", "ip:2001:db8:1:2::/64", "allowed"},
		{"missing key, bad source IP", gate.Request{Method: "GET", Resource: "/health", SourceIP: "nope"}, gate.Unauthorized, "public", "", "missing API key and no valid source IP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.check(t, tt.req)
			if res.Status != tt.wantStatus || res.TenantID != tt.wantTenant || res.Identity != tt.wantID || res.Reason != tt.wantReason {
				t.Errorf("got status %v tenant %q identity %q reason %q, want %v %q %q %q",
					res.Status, res.TenantID, res.Identity, res.Reason, tt.wantStatus, tt.wantTenant, tt.wantID, tt.wantReason)
			}
			if strings.Contains(res.Reason, tt.req.APIKey) && tt.req.APIKey != "" {
				t.Errorf("reason %q holds the key", res.Reason)
			}
		})
	}
}

func TestMissingKeyWithoutAnonymousTenant(t *testing.T) {
	f := newFixture(t, nil)
	res := f.check(t, gate.Request{Method: "GET", Resource: "/health", SourceIP: "192.0.2.1"})
	if res.Status != gate.Unauthorized {
		t.Fatalf("status %v, want unauthorized", res.Status)
	}
}

func mustTenant(t *testing.T, js string) tenant.Tenant {
	t.Helper()
	tn, err := tenant.Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

// The route's rules and the tenant-wide rules are decided as one, in one store call: a
// route denial consumes nothing from the tenant's counters.
func TestRouteAndTenantInOneCall(t *testing.T) {
	f := newFixture(t, nil)
	orders := gate.Request{Method: "POST", Resource: "/orders", APIKey: f.key}
	steps := []struct {
		name          string
		req           gate.Request
		wantStatus    gate.Status
		wantRule      string
		wantRemaining int64
		wantCalls     int
	}{
		{"route 1 of 2, tenant 1 of 5", orders, gate.Allowed, "orders", 1, 1},
		{"route 2 of 2, tenant 2 of 5", orders, gate.Allowed, "orders", 0, 1},
		{"the route denies: nothing is consumed", orders, gate.Denied, "orders", 0, 1},
		{"other route: tenant 3 of 5", gate.Request{Method: "GET", Resource: "/orders", APIKey: f.key}, gate.Allowed, "minute", 2, 1},
	}
	for _, s := range steps {
		before := f.counters.calls.Load()
		res := f.check(t, s.req)
		calls := int(f.counters.calls.Load() - before)
		if res.Status != s.wantStatus || res.Rule != s.wantRule || res.Decision.Remaining != s.wantRemaining || calls != s.wantCalls || res.StoreCalls != s.wantCalls {
			t.Errorf("%s: got %v rule %q remaining %d calls %d (reported %d), want %v %q %d %d",
				s.name, res.Status, res.Rule, res.Decision.Remaining, calls, res.StoreCalls, s.wantStatus, s.wantRule, s.wantRemaining, s.wantCalls)
		}
	}
}

func TestShadowModeAlwaysAllows(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "shady", "shadow": true, "rules": [{"name": "one", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`)
	key, _ := f.addKey(t, "shady")
	req := gate.Request{Method: "GET", Resource: "/", APIKey: key}
	first := f.check(t, req)
	second := f.check(t, req)
	if first.Status != gate.Allowed || !first.Shadow || !first.Decision.Allowed {
		t.Errorf("first: %+v", first)
	}
	if second.Status != gate.Allowed || !second.Shadow || second.Decision.Allowed || second.Decision.RetryAfter <= 0 {
		t.Errorf("second: want allowed in shadow with a would-be denial, got %+v", second)
	}
}

func TestCostErrors(t *testing.T) {
	f := newFixture(t, nil)
	for _, cost := range []int64{-1, 6} {
		before := f.counters.calls.Load()
		_, err := f.g.Check(context.Background(), gate.Request{Method: "GET", Resource: "/", APIKey: f.key, Cost: cost})
		var ce *limiter.CostError
		if !errors.As(err, &ce) {
			t.Errorf("cost %d: err %v, want a *limiter.CostError", cost, err)
		}
		if n := f.counters.calls.Load() - before; n != 0 {
			t.Errorf("cost %d: %d store calls, want 0", cost, n)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	f := newFixture(t, nil)
	bad := []gate.Config{
		{},
		{Tenants: f.tenants},
		{Tenants: f.tenants, Counters: f.counters, FailMode: "sideways"},
		{Tenants: f.tenants, Counters: f.counters, AnonymousTenant: "Not Valid"},
	}
	for i, cfg := range bad {
		if _, err := gate.New(cfg); err == nil {
			t.Errorf("config %d: no error", i)
		}
	}
}

// A tenant stored before rules had scopes decodes to the documented defaults and
// decides by them: its rules count once for the tenant (its two keys share them), its
// anonymous route per client address.
func TestTenantStoredBeforeScopes(t *testing.T) {
	f := newFixture(t, func(c *gate.Config) { c.AnonymousTenant = "legacy" })
	stored := `{"id": "legacy", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 3, "period": "day"}],
	  "timezone": "UTC", "fail_mode": "closed", "status": "active", "shadow": false,
	  "routes": [{"method": "GET", "resource": "/health", "anonymous": true,
	              "rules": [{"name": "health", "algorithm": "fixed_window", "limit": 1, "period": "1s"}]}],
	  "version": 4, "generation": 2}`
	f.createTenant(t, stored)
	a, _ := f.addKey(t, "legacy")
	b, _ := f.addKey(t, "legacy")
	for i, key := range []string{a, b, a} {
		if res := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: key}); res.Status != gate.Allowed {
			t.Fatalf("request %d: %+v", i+1, res)
		}
	}
	if res := f.check(t, gate.Request{Method: "GET", Resource: "/", APIKey: b}); res.Status != gate.Denied || res.Rule != "daily" {
		t.Fatalf("4th request of the tenant, by its second key: %+v, want the shared daily quota's denial", res)
	}
	f.clock.add(86400 * sec) // a new day; the anonymous route counts per address
	for _, ip := range []string{"192.0.2.1", "192.0.2.2"} {
		if res := f.check(t, gate.Request{Method: "GET", Resource: "/health", SourceIP: ip}); res.Status != gate.Allowed {
			t.Fatalf("first request from %s: %+v", ip, res)
		}
	}
	if res := f.check(t, gate.Request{Method: "GET", Resource: "/health", SourceIP: "192.0.2.1"}); res.Status != gate.Denied || res.Rule != "health" {
		t.Fatalf("second request from 192.0.2.1 within the second: %+v, want health's denial", res)
	}
}
