package main

import (
	"io"
	"testing"
)

// TestDevRouteTemplates pins the bug where `edgelimit dev` sent a request's path as its
// resource: a route written for GET /items/{id}, the resource a deployed REST API
// sends for /items/1, never matched, and its limit held only once deployed. A tenant
// created through the admin API after the start gets its route's 2 a minute on
// /items/{id} from the next request, and /other only its tenant-wide rule.
func TestDevRouteTemplates(t *testing.T) {
	base, _ := startDevBinary(t)
	const shop = `{"id": "shop", "rules": [{"name": "wide", "algorithm": "fixed_window", "limit": 100, "period": "1m", "anchor": "first_request"}],
	  "routes": [{"method": "GET", "resource": "/items/{id}",
	              "rules": [{"name": "items", "algorithm": "fixed_window", "limit": 2, "period": "1m", "anchor": "first_request"}]}]}`
	if resp := do(t, "PUT", base+"/admin/tenants/shop", "", shop); resp.StatusCode != 201 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT /admin/tenants/shop: %s %s", resp.Status, b)
	}
	key := issueKey(t, base, "shop")
	for i, tc := range []struct {
		path string
		want int
	}{{"/items/1", 200}, {"/items/2", 200}, {"/items/3", 429}, {"/other", 200}, {"/other", 200}} {
		if resp := do(t, "GET", base+tc.path, key, ""); resp.StatusCode != tc.want {
			t.Errorf("request %d, GET %s: %s, want %d", i+1, tc.path, resp.Status, tc.want)
		}
	}
}
