package gate_test

import (
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// TestRouteCost: a request of a route with a cost counts that cost unless the trusted
// caller set one; off any route a request counts 1.
func TestRouteCost(t *testing.T) {
	f := newFixture(t, nil)
	f.createTenant(t, `{"id": "llm", "rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 10000, "period": "1m"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 5000, "period": "1m"}]}]}`)
	key, _ := f.addKey(t, "llm")
	steps := []struct {
		name          string
		req           gate.Request
		wantRemaining int64 // of the reported rule
		wantAllowed   bool
	}{
		{"route cost", gate.Request{APIKey: key, Method: "POST", Resource: "/chat"}, 4000, true},
		{"caller's cost", gate.Request{APIKey: key, Method: "POST", Resource: "/chat", Cost: 3000}, 1000, true},
		{"route cost, the last that fits", gate.Request{APIKey: key, Method: "POST", Resource: "/chat"}, 0, true},
		{"route cost over what is left", gate.Request{APIKey: key, Method: "POST", Resource: "/chat", Cost: 0}, 0, false},
		{"off any route", gate.Request{APIKey: key, Method: "GET", Resource: "/models"}, 4999, true},
	}
	for _, s := range steps {
		res := f.check(t, s.req)
		if res.Decision.Allowed != s.wantAllowed || res.Decision.Remaining != s.wantRemaining {
			t.Errorf("%s: allowed %v remaining %d (rule %q), want %v %d", s.name, res.Decision.Allowed, res.Decision.Remaining, res.Rule, s.wantAllowed, s.wantRemaining)
		}
	}
}
