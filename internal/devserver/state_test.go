package devserver_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/devserver"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// devGateway is the dev server as `edgelimit dev` wires it on the memory backend:
// EDGELIMIT_CONFIG_TTL=0 (nothing cached: admin changes apply at once), the system
// clock, the production latency budget.
type devGateway struct {
	t   *testing.T
	srv *devserver.Server
}

func newDevGateway(t *testing.T) *devGateway {
	t.Helper()
	tenants, counters := memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})
	srv := wire(t, gate.Config{Tenants: tenants, Counters: counters, ConfigTTL: -1},
		admin.Config{Tenants: tenants, Counters: counters, Audit: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	return &devGateway{t: t, srv: srv}
}

// do sends a request from 192.0.2.1 and returns its status and body.
func (d *devGateway) do(method, path, body string, header ...string) (int, string) {
	d.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	d.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// admin sends an admin request that must answer want, and returns its body.
func (d *devGateway) admin(want int, method, path, body string, header ...string) string {
	d.t.Helper()
	code, out := d.do(method, "/admin"+path, body, header...)
	if code != want {
		d.t.Fatalf("%s %s: %d %s; want %d", method, path, code, out, want)
	}
	return out
}

// newKey creates a key of tenant id and returns it.
func (d *devGateway) newKey(id string) string {
	d.t.Helper()
	var created struct{ Key string }
	if err := json.Unmarshal([]byte(d.admin(http.StatusCreated, "POST", "/tenants/"+id+"/keys", "{}")), &created); err != nil || created.Key == "" {
		d.t.Fatalf("new key of %s: %v", id, err)
	}
	return created.Key
}

// allowed sends n requests with key and counts the allowed ones.
func (d *devGateway) allowed(n int, key string) int {
	d.t.Helper()
	ok := 0
	for range n {
		switch code, body := d.do("GET", "/orders", "", "x-api-key", key); code {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
		default:
			d.t.Fatalf("GET /orders: %d %s", code, body)
		}
	}
	return ok
}

const keyAndIPTenant = `{"id": "acme",
  "rules": [{"name": "per-key", "algorithm": "token_bucket", "limit": 10, "period": "1h", "scope": "key"},
            {"name": "per-ip", "algorithm": "token_bucket", "limit": 2, "period": "1h", "scope": "ip"}]}`

// TestUsageReadKeepsTheAddressCounter pins the bug where GET usage?ip= reset the
// address's counter (dev's memory store, no config cache): 4 requests were allowed
// against an ip limit of 2 over two rounds of three with a usage read between them.
func TestUsageReadKeepsTheAddressCounter(t *testing.T) {
	d := newDevGateway(t)
	d.admin(http.StatusCreated, "PUT", "/tenants/acme", keyAndIPTenant)
	key := d.newKey("acme")
	first := d.allowed(3, key)
	usage := d.admin(http.StatusOK, "GET", "/tenants/acme/usage?ip=192.0.2.1", "")
	second := d.allowed(3, key)
	if first != 2 || second != 0 {
		t.Errorf("allowed %d then %d (usage between: %s); want 2 then 0 against an ip limit of 2", first, second, usage)
	}
	if !strings.Contains(usage, `"used":2`) {
		t.Errorf("usage after two requests from the address: %s", usage)
	}
}

// TestRecreatedTenantStartsAfresh pins the bug where a tenant deleted and created
// again kept its old counters: its new key's first request was denied.
func TestRecreatedTenantStartsAfresh(t *testing.T) {
	d := newDevGateway(t)
	const one = `{"id": "acme", "rules": [{"name": "org", "algorithm": "fixed_window", "limit": 2, "period": "day"}]}`
	d.admin(http.StatusCreated, "PUT", "/tenants/acme", one)
	if got := d.allowed(3, d.newKey("acme")); got != 2 {
		t.Fatalf("%d of 3 allowed against a limit of 2", got)
	}
	d.admin(http.StatusNoContent, "DELETE", "/tenants/acme", "", "If-Match", "*")
	d.admin(http.StatusCreated, "PUT", "/tenants/acme", one)
	if got := d.allowed(3, d.newKey("acme")); got != 2 {
		t.Errorf("the tenant created again: %d of 3 allowed; want 2, from fresh counters", got)
	}
}
