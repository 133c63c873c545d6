package devserver_test

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestRouteTemplatesApply pins the bug where dev gave the authorizer a request's path
// as its resource: a route for GET /items/{id} (what a deployed REST API sends for
// /items/1) never matched, and its limit of 2 a minute never held. Routes of tenants
// stored before the start apply, and so do those that the admin API writes after it,
// a plan's included, from the next request.
func TestRouteTemplatesApply(t *testing.T) {
	tenants, counters := memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})
	shop, err := tenant.Decode([]byte(`{"id": "shop", "rules": [{"name": "wide", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
	  "routes": [{"method": "GET", "resource": "/items/{id}", "rules": [{"name": "items", "algorithm": "fixed_window", "limit": 2, "period": "1m"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(t.Context(), shop); err != nil {
		t.Fatal(err)
	}
	now := func() int64 { return serverT0 }
	d := &devGateway{t: t, srv: wire(t, gate.Config{Tenants: tenants, Counters: counters, ConfigTTL: -1, Now: now},
		admin.Config{Tenants: tenants, Counters: counters, Now: now, Audit: slog.New(slog.NewJSONHandler(io.Discard, nil))})}
	d.expect(d.newKey("shop"), "/items/1", 200, "/items/2", 200, "/items/3", 429, "/other", 200, "/other", 200)

	d.admin(http.StatusCreated, "PUT", "/tenants/late", `{"id": "late", "rules": [{"name": "wide", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
	  "routes": [{"method": "ANY", "resource": "/users/{id}/{proxy+}", "rules": [{"name": "users", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}]}`)
	d.expect(d.newKey("late"), "/users/1/a", 200, "/users/2/b/c", 429, "/users/3", 200)

	d.admin(http.StatusCreated, "PUT", "/plans/files", `{"id": "files", "rules": [{"name": "wide", "algorithm": "fixed_window", "limit": 100, "period": "1m"}],
	  "routes": [{"method": "GET", "resource": "/files/{name}", "rules": [{"name": "files", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}]}`)
	d.admin(http.StatusOK, "PATCH", "/tenants/late", `{"plan": "files"}`, "Content-Type", "application/merge-patch+json", "If-Match", "*")
	d.expect(d.newKey("late"), "/files/a", 200, "/files/b", 429, "/files/a/b", 200)
}

// expect sends GET to each path with key, and checks each answer's status.
func (d *devGateway) expect(key string, pathsAndCodes ...any) {
	d.t.Helper()
	for i := 0; i+1 < len(pathsAndCodes); i += 2 {
		path, want := pathsAndCodes[i].(string), pathsAndCodes[i+1].(int)
		if code, body := d.do("GET", path, "", "x-api-key", key); code != want {
			d.t.Errorf("request %d, GET %s: %d %s; want %d", i/2+1, path, code, body, want)
		}
	}
}
