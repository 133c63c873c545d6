package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestDevSettlesFromUpstream: `edgelimit dev --upstream` settles each allowed request
// from the upstream's X-RateLimit-Settle-Cost, which the client never sees: three chat
// requests that reserve 1000 tokens each and cost 4000 leave the usage at 12000.
func TestDevSettlesFromUpstream(t *testing.T) {
	var served atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("X-RateLimit-Settle-Cost", "4000")
		io.WriteString(w, "completion")
	}))
	defer upstream.Close()
	d := startDevProcess(t, []string{"EDGELIMIT_BACKEND=memory", "EDGELIMIT_TENANTS_FILE="}, "--upstream", upstream.URL)
	tenant := `{"id": "llm", "rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 100000, "period": "day"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000, "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 1000000, "period": "day"}]}]}`
	if resp := do(t, "PUT", d.base+"/admin/tenants/llm", "", tenant); resp.StatusCode != 201 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT /admin/tenants/llm: %s %s", resp.Status, b)
	}
	var issued struct {
		Key string `json:"key"`
	}
	if resp := do(t, "POST", d.base+"/admin/tenants/llm/keys", "", ""); json.NewDecoder(resp.Body).Decode(&issued) != nil || issued.Key == "" {
		t.Fatalf("POST /admin/tenants/llm/keys: %s", resp.Status)
	}
	for i, want := range []string{"99000", "95000", "91000"} {
		r := do(t, "POST", d.base+"/chat", issued.Key, "")
		body, _ := io.ReadAll(r.Body)
		if r.StatusCode != 200 || string(body) != "completion" || r.Header.Get("X-RateLimit-Remaining") != want {
			t.Fatalf("request %d: %s %q, remaining %q, want 200 and %s", i+1, r.Status, body, r.Header.Get("X-RateLimit-Remaining"), want)
		}
		if v, ok := r.Header["X-Ratelimit-Settle-Cost"]; ok {
			t.Fatalf("request %d: the client saw X-RateLimit-Settle-Cost %q", i+1, v)
		}
	}
	var usage struct {
		Rules []struct {
			Rule struct {
				Name string `json:"name"`
			} `json:"rule"`
			Used int64 `json:"used"`
		} `json:"rules"`
	}
	resp := do(t, "GET", d.base+"/admin/tenants/llm/usage", "", "")
	if err := json.NewDecoder(resp.Body).Decode(&usage); err != nil {
		t.Fatal(err)
	}
	used := map[string]int64{}
	for _, r := range usage.Rules {
		used[r.Rule.Name] = r.Used
	}
	if used["tokens"] != 12000 || served.Load() != 3 {
		t.Errorf("usage %v after %d upstream requests, want tokens 12000 after 3", used, served.Load())
	}
}
