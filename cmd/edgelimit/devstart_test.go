package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// TestDevBusyPortWritesNothing: with the port taken, dev fails naming the port before
// it sends anything to the store (here a stand-in Upstash that counts requests).
func TestDevBusyPortWritesNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	var requests atomic.Int64
	upstash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, `{"error": "stand-in"}`, http.StatusInternalServerError)
	}))
	defer upstash.Close()
	t.Setenv("UPSTASH_REDIS_REST_URL", upstash.URL)
	t.Setenv("UPSTASH_REDIS_REST_TOKEN", "token")
	t.Setenv("EDGELIMIT_TENANTS_FILE", "")
	code, stdout, stderr := runCapture(t, "", "dev", "--backend", "upstash", "--listen", busy.Addr().String())
	if code != 1 || stdout != "" || !strings.Contains(stderr, "the port is in use") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the port named", code, stdout, stderr)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the store got %d requests before dev found the port busy, want 0", n)
	}
}

func TestDevEnv(t *testing.T) {
	env := map[string]string{"EDGELIMIT_BACKEND": "upstash", "EDGELIMIT_LOG_LEVEL": "debug", "EDGELIMIT_CONFIG_TTL": " "}
	lookup := func(k string) string { return env[k] }
	get := devOptions{getenv: lookup}.env()
	if get("EDGELIMIT_BACKEND") != "upstash" || get("EDGELIMIT_CONFIG_TTL") != "0" || get("EDGELIMIT_LATENCY_BUDGET") != "5s" || get("EDGELIMIT_LOG_LEVEL") != "debug" {
		t.Errorf("devEnv: backend %q, TTL %q, budget %q", get("EDGELIMIT_BACKEND"), get("EDGELIMIT_CONFIG_TTL"), get("EDGELIMIT_LATENCY_BUDGET"))
	}
	env["EDGELIMIT_CONFIG_TTL"] = "10s"
	if get := (devOptions{backend: "dynamodb", getenv: lookup}).env(); get("EDGELIMIT_BACKEND") != "dynamodb" || get("EDGELIMIT_CONFIG_TTL") != "10s" {
		t.Errorf("devEnv with --backend and a TTL set: %q, %q", get("EDGELIMIT_BACKEND"), get("EDGELIMIT_CONFIG_TTL"))
	}
}

// TestDevAppliesAdminChangesAtOnce: dev caches nothing by default (config TTL 0): a
// key revoked through the admin API is refused on the next request.
func TestDevAppliesAdminChangesAtOnce(t *testing.T) {
	d := startDevProcess(t, []string{"EDGELIMIT_BACKEND=memory", "EDGELIMIT_TENANTS_FILE=", "EDGELIMIT_CONFIG_TTL="})
	if resp := do(t, "GET", d.base+"/hello", d.key, ""); resp.StatusCode != 200 {
		t.Fatalf("the demo key: %s", resp.Status)
	}
	id := demoKeyIDs(t, d.base)
	if len(id) != 1 {
		t.Fatalf("demo keys %v, want one", id)
	}
	if resp := do(t, "DELETE", d.base+"/admin/tenants/demo/keys/"+id[0], "", ""); resp.StatusCode/100 != 2 {
		t.Fatalf("revoking the demo key: %s", resp.Status)
	}
	if resp := do(t, "GET", d.base+"/hello", d.key, ""); resp.StatusCode != 401 {
		t.Errorf("the revoked demo key, at once: %s, want 401", resp.Status)
	}
}

// TestDevOnPersistentBackends: on DynamoDB Local with no tables, and on Upstash (the
// local REST server over redis-server), dev creates what it needs, its demo key gets
// 429 on the sixth request, and a second start leaves one demo key, the new one.
func TestDevOnPersistentBackends(t *testing.T) {
	suffix := randomSuffix(t)
	backends := []struct {
		name string
		env  func(t *testing.T) []string
	}{
		{"dynamodb", func(t *testing.T) []string {
			return []string{"AWS_ENDPOINT_URL_DYNAMODB=" + testenv.DynamoDBURL(t),
				"EDGELIMIT_TENANTS_TABLE=dev-tenants-" + suffix, "EDGELIMIT_COUNTERS_TABLE=dev-counters-" + suffix}
		}},
		{"upstash", func(t *testing.T) []string {
			url, token := testenv.UpstashURL(t)
			return []string{"UPSTASH_REDIS_REST_URL=" + url, "UPSTASH_REDIS_REST_TOKEN=" + token, "EDGELIMIT_UPSTASH_PREFIX=el:dev" + suffix + ":"}
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			env := append(b.env(t), "EDGELIMIT_BACKEND="+b.name, "EDGELIMIT_TENANTS_FILE=")
			var second devProcess
			first := startDevProcess(t, env)
			if logs := first.logs(t); b.name == "dynamodb" && strings.Count(logs, "created the DynamoDB table") != 2 {
				t.Errorf("first start, stderr:\n%s\nwant both tables created", logs)
			}
			defer func() {
				logs := first.logs(t)
				if second.stderr != nil {
					logs += second.logs(t)
				}
				if strings.Contains(logs, "WARN") {
					t.Errorf("dev logged warnings:\n%s", logs)
				}
			}()
			for i := 1; i <= 6; i++ {
				want := map[bool]int{true: 200, false: 429}[i <= 5]
				if resp := do(t, "GET", first.base+"/hello", first.key, ""); resp.StatusCode != want {
					t.Fatalf("request %d: %s, want %d", i, resp.Status, want)
				}
			}
			first.stop()
			second = startDevProcess(t, env)
			if logs := second.logs(t); second.key == first.key || !strings.Contains(logs, "deleted the demo key of the previous start") {
				t.Errorf("second start: the same key, or stderr without the deletion:\n%s", logs)
			}
			if ids := demoKeyIDs(t, second.base); len(ids) != 1 {
				t.Errorf("after two starts the demo tenant has keys %v, want one", ids)
			}
			if resp := do(t, "GET", second.base+"/hello", first.key, ""); resp.StatusCode != 401 {
				t.Errorf("the first start's key: %s, want 401", resp.Status)
			}
			if resp := do(t, "GET", second.base+"/hello", second.key, ""); resp.StatusCode != 200 && resp.StatusCode != 429 {
				t.Errorf("the second start's key: %s, want it to authenticate (200, or 429 within the window)", resp.Status)
			}
		})
	}
}

// demoKeyIDs lists the key ids of the demo tenant through the admin API.
func demoKeyIDs(t *testing.T, base string) []string {
	t.Helper()
	resp := do(t, "GET", base+"/admin/tenants/demo/keys", "", "")
	var body struct {
		Keys []struct {
			KeyID string `json:"key_id"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /admin/tenants/demo/keys: %s, %v", resp.Status, err)
	}
	var ids []string
	for _, k := range body.Keys {
		ids = append(ids, k.KeyID)
	}
	return ids
}

func randomSuffix(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// --redis is EDGELIMIT_REDIS_ADDR, and the redis backend unless one is named.
func TestDevRedisFlag(t *testing.T) {
	env := map[string]string{}
	o := devOptions{redis: "127.0.0.1:6380", getenv: func(k string) string { return env[k] }}
	get := o.env()
	if get("EDGELIMIT_REDIS_ADDR") != "127.0.0.1:6380" || get("EDGELIMIT_BACKEND") != "redis" {
		t.Errorf("--redis: address %q, backend %q", get("EDGELIMIT_REDIS_ADDR"), get("EDGELIMIT_BACKEND"))
	}
	env["EDGELIMIT_BACKEND"] = "memory"
	if get := o.env(); get("EDGELIMIT_BACKEND") != "memory" {
		t.Errorf("--redis with EDGELIMIT_BACKEND=memory: backend %q", get("EDGELIMIT_BACKEND"))
	}
	if get := (devOptions{backend: "redis", getenv: func(string) string { return "" }}).env(); get("EDGELIMIT_REDIS_ADDR") != "" {
		t.Errorf("no --redis: address %q", get("EDGELIMIT_REDIS_ADDR"))
	}
}

// TestDevOnRedis: `edgelimit dev --backend redis --redis ADDR` on the test redis-server
// and on the 3-node cluster (EDGELIMIT_REDIS_CLUSTER=true): the demo key gets 429 on
// the sixth request, and the start says where the backend is.
func TestDevOnRedis(t *testing.T) {
	for _, tc := range []struct {
		name, cluster string
		addrs         func(testing.TB) string
	}{
		{"standalone", "false", testenv.RedisAddr},
		{"cluster", "true", func(tb testing.TB) string { return strings.Join(testenv.RedisCluster(tb), ",") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs := tc.addrs(t)
			d := startDevProcess(t, []string{"EDGELIMIT_BACKEND=", "EDGELIMIT_TENANTS_FILE=", "EDGELIMIT_REDIS_CLUSTER=" + tc.cluster,
				"EDGELIMIT_REDIS_PREFIX=el:dev" + randomSuffix(t) + ":"}, "--backend", "redis", "--redis", addrs)
			for i := 1; i <= 6; i++ {
				want := map[bool]int{true: 200, false: 429}[i <= 5]
				if resp := do(t, "GET", d.base+"/hello", d.key, ""); resp.StatusCode != want {
					t.Fatalf("request %d: %s, want %d", i, resp.Status, want)
				}
			}
			if logs := d.logs(t); !strings.Contains(logs, "backend redis ("+addrs) {
				t.Errorf("stderr does not say where the backend is:\n%s", logs)
			}
		})
	}
}

// TestDevRefusesAMisspeltVariable pins the bug of EDGELIMIT_BACKND=memory, with which
// dev started as if nothing were set: it exits 1, naming the closest known name.
func TestDevRefusesAMisspeltVariable(t *testing.T) {
	t.Setenv("EDGELIMIT_BACKND", "memory")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	code, stdout, stderr := runCapture(t, "", "dev", "--listen", addr)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "EDGELIMIT_BACKND is not a variable edgelimit reads; did you mean EDGELIMIT_BACKEND?") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the closest name", code, stdout, stderr)
	}
}
