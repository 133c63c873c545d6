package apply_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

// TestTenantThatDoesNotMergeWithAKeysOwnRulesWritesNothing: "The whole file is
// validated first ... then against the server ...: a problem is an error naming the
// object and the field ... and nothing is written" (docs/reference.md, "Limits as
// code"). The admin API refuses (422) a tenant write whose rules, merged with the own
// rules of one of its keys, break a bound: more than 8 rules in a set, or a route's
// cost above a key's own rule (docs/design.md, Departures). Apply checks the file's
// tenants against their plans and overrides, not against their keys' own rules: it
// writes the file's earlier objects (here plan "free", written first), then stops at
// the tenant's 422, leaving the server half applied.
func TestTenantThatDoesNotMergeWithAKeysOwnRulesWritesNothing(t *testing.T) {
	tests := []struct{ name, tenant, field string }{
		{"more than 8 rules with the key's", "    rules: " + eightRules + "\n", "rules"},
		{"a route's cost above the key's rule", "    rules: [{name: daily, algorithm: fixed_window, limit: 100000, period: day}]\n" +
			"    routes: [{method: POST, resource: /chat, cost: 500, rules: [{name: chat, algorithm: fixed_window, limit: 100000, period: day}]}]\n", "cost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			s.putTenant(t, `{"id": "acme", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100000, "period": "day"}]}`)
			code, body := s.send(t, http.MethodPost, "/tenants/acme/keys", "",
				`{"rules": [{"name": "per-key", "algorithm": "fixed_window", "limit": 100, "period": "1m"}]}`)
			if code != http.StatusCreated {
				t.Fatalf("POST key with own rules: %d %s", code, body)
			}
			s.writes.Store(0)
			file := "plans:\n  - id: free\n    rules: [{name: daily, algorithm: fixed_window, limit: 1000, period: day}]\n" +
				"tenants:\n  - id: acme\n" + tc.tenant
			want, err := apply.Parse("limits.yaml", []byte(file))
			if err != nil {
				t.Fatalf("the file on its own is valid: %v", err)
			}
			var out bytes.Buffer
			err = apply.Run(context.Background(), s.client(t), want, false, false, &out)
			if err == nil {
				t.Fatalf("apply succeeded; the admin API should have refused tenant acme:\n%s", out.String())
			}
			if code, _ := s.send(t, http.MethodGet, "/plans/free", "", ""); code != http.StatusNotFound {
				t.Errorf("plan free was written (GET %d) before apply met the tenant's problem (%v); want nothing written:\n%s", code, err, out.String())
			}
		})
	}
}

// eightRules is 8 tenant-wide rules, none named per-key.
var eightRules = "[" + strings.Join([]string{
	"{name: r1, algorithm: fixed_window, limit: 1000, period: 1s}", "{name: r2, algorithm: fixed_window, limit: 1000, period: 2s}",
	"{name: r3, algorithm: fixed_window, limit: 1000, period: 3s}", "{name: r4, algorithm: fixed_window, limit: 1000, period: 4s}",
	"{name: r5, algorithm: fixed_window, limit: 1000, period: 5s}", "{name: r6, algorithm: fixed_window, limit: 1000, period: 6s}",
	"{name: r7, algorithm: fixed_window, limit: 1000, period: 7s}", "{name: r8, algorithm: fixed_window, limit: 1000, period: 8s}",
}, ", ") + "]"
