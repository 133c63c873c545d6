package apply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

// TestApplyChecksTenantsAgainstTheirKeysOwnRules: the error of a tenant that does not
// merge with a key's own rules names the tenant, the field and the key, a dry run
// reports it too, and a change that merges with them is written and leaves the key's
// own rules as they are.
func TestApplyChecksTenantsAgainstTheirKeysOwnRules(t *testing.T) {
	s := newServer(t)
	s.putTenant(t, `{"id": "acme", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100000, "period": "day"}]}`)
	keyID := issueKey(t, s, "acme", `{"rules": [{"name": "per-key", "algorithm": "fixed_window", "limit": 100, "period": "1m"}]}`)
	s.writes.Store(0)
	costly := "tenants:\n  - id: acme\n    rules: [{name: daily, algorithm: fixed_window, limit: 100000, period: day}]\n" +
		"    routes: [{method: POST, resource: /chat, cost: 500, rules: [{name: chat, algorithm: fixed_window, limit: 100000, period: day}]}]\n"
	err := apply.Run(context.Background(), s.client(t), parse(t, "limits.yaml", costly), false, true, new(bytes.Buffer))
	for _, want := range []string{"tenant acme", "routes[0].cost", "own rules of key " + keyID} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("dry run: error %v, want one naming %q", err, want)
		}
	}
	same := "tenants:\n  - id: acme\n    rules: [{name: daily, algorithm: fixed_window, limit: 100000, period: day}]\n" +
		"    metadata: {owner: billing}\n"
	var out bytes.Buffer
	if err := apply.Run(context.Background(), s.client(t), parse(t, "limits.yaml", same), false, false, &out); err != nil {
		t.Fatalf("a change that merges with the key's rules: %v", err)
	}
	if n := s.writes.Load(); n != 1 {
		t.Errorf("%d writes, want 1 (the tenant's):\n%s", n, out.String())
	}
	if got := s.get(t, "/tenants/acme/keys"); !strings.Contains(got, `"per-key"`) {
		t.Errorf("the key's own rules were not kept: %s", got)
	}
}

// issueKey issues a key of tenant with the body of POST /tenants/{id}/keys, and returns
// its id.
func issueKey(t *testing.T, s *server, tenant, body string) string {
	t.Helper()
	code, answer := s.send(t, http.MethodPost, "/tenants/"+tenant+"/keys", "", body)
	var key struct {
		KeyID string `json:"key_id"`
	}
	if err := json.Unmarshal([]byte(answer), &key); code != http.StatusCreated || err != nil {
		t.Fatalf("POST /tenants/%s/keys %s: %d %s", tenant, body, code, answer)
	}
	return key.KeyID
}
