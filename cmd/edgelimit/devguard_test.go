package main

import (
	"net/http"
	"strings"
	"testing"
)

// `edgelimit dev` serves its admin API behind devserver.Guard: a PUT under a rebound
// Host and a POST from another origin are refused and create nothing, while the same
// PUT from curl's Host, and with the console's own Origin, creates the tenant.
func TestDevRefusesWebPages(t *testing.T) {
	base, _ := startDevBinary(t)
	host := strings.TrimPrefix(base, "http://")
	tenant := func(id string) string {
		return `{"id": "` + id + `", "rules": [{"name": "m", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`
	}
	for _, tt := range []struct {
		id, host, origin string
		want             int
	}{
		{"rebound", "evil.example:3000", "", 403},
		{"foreign", host, "http://evil.example", 403},
		{"curl", host, "", 201},
		{"console", host, base, 201},
	} {
		req, err := http.NewRequest("PUT", base+"/admin/tenants/"+tt.id, strings.NewReader(tenant(tt.id)))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tt.host
		req.Header.Set("Content-Type", "application/json")
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		after := do(t, "GET", base+"/admin/tenants/"+tt.id, "", "").StatusCode
		if resp.StatusCode != tt.want || (after == 200) != (tt.want == 201) {
			t.Errorf("PUT %s (Host %s, Origin %q): %s, then GET %d", tt.id, tt.host, tt.origin, resp.Status, after)
		}
	}
}
