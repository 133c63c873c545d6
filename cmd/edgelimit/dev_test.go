package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startDevBinary starts `edgelimit dev` on a free loopback port with the memory
// backend, and returns its base URL and the demo key it printed. The process is
// stopped (SIGINT) when the test ends.
func startDevBinary(t *testing.T) (base, demoKey string) {
	t.Helper()
	d := startDevProcess(t, []string{"EDGELIMIT_BACKEND=memory", "EDGELIMIT_TENANTS_FILE="})
	return d.base, d.key
}

// devProcess is a running `edgelimit dev`.
type devProcess struct {
	base, key string
	stderr    *os.File // written by the process itself: complete up to its last write
	stop      func()   // SIGINT, then wait (idempotent)
}

// logs returns what the process wrote to stderr so far.
func (d devProcess) logs(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(d.stderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startDevProcess builds edgelimit once, starts `edgelimit dev --listen 127.0.0.1:0 ARGS` with
// env added to the test's environment, and waits for its address and demo key.
func startDevProcess(t *testing.T, env []string, args ...string) devProcess {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"dev", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	d := devProcess{stderr: stderr}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	d.stop = func() { once.Do(func() { stopProcess(t, cmd) }) }
	t.Cleanup(d.stop)
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && (d.base == "" || d.key == "") {
		line := lines.Text()
		if rest, ok := strings.CutPrefix(line, "edgelimit dev: listening on "); ok {
			d.base = strings.Fields(rest)[0]
		}
		if rest, ok := strings.CutPrefix(line, "demo key: "); ok {
			d.key = rest
		}
	}
	go io.Copy(io.Discard, stdout)
	if d.base == "" || d.key == "" {
		d.stop()
		t.Fatalf("edgelimit dev printed no address or demo key; stderr:\n%s", d.logs(t))
	}
	return d
}

// stopProcess sends SIGINT and waits at most 10 s for a clean exit.
func stopProcess(t *testing.T, cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("edgelimit dev exited with %v after SIGINT", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Error("edgelimit dev did not stop within 10s of SIGINT")
	}
}

func do(t *testing.T, method, url, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// issueKey issues a key of the tenant id through the admin API at base, and returns it.
func issueKey(t *testing.T, base, id string) string {
	t.Helper()
	resp := do(t, "POST", base+"/admin/tenants/"+id+"/keys", "", "")
	var issued struct {
		Key string `json:"key"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&issued); err != nil || resp.StatusCode != 201 || issued.Key == "" {
		t.Fatalf("POST /admin/tenants/%s/keys: %s, %v", id, resp.Status, err)
	}
	return issued.Key
}

// TestDevEndToEnd starts `edgelimit dev`, creates a tenant and a key through /admin/,
// sends requests until 429, checks Retry-After and the RateLimit headers, waits (at
// most 2 s of real time, polling) and succeeds again.
func TestDevEndToEnd(t *testing.T) {
	base, demoKey := startDevBinary(t)
	if resp := do(t, "GET", base+"/hello", demoKey, ""); resp.StatusCode != 200 {
		t.Fatalf("the demo key: %s", resp.Status)
	}
	tenant := `{"id": "e2e", "rules": [{"name": "second", "algorithm": "fixed_window", "limit": 3, "period": "1s"}]}`
	if resp := do(t, "PUT", base+"/admin/tenants/e2e", "", tenant); resp.StatusCode != 201 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT /admin/tenants/e2e: %s %s", resp.Status, b)
	}
	key := issueKey(t, base, "e2e")
	var denied *http.Response
	for i := 0; i < 10 && denied == nil; i++ {
		if r := do(t, "GET", base+"/orders", key, ""); r.StatusCode == 429 {
			denied = r
		} else if r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") == "" {
			t.Fatalf("request %d: %s, remaining %q", i, r.Status, r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	if denied == nil {
		t.Fatal("10 requests on a limit of 3 per second: never a 429")
	}
	retry, err := strconv.Atoi(denied.Header.Get("Retry-After"))
	if err != nil || retry < 1 || retry > 1 || !strings.HasPrefix(denied.Header.Get("RateLimit"), `"second";r=0;t=`) ||
		!strings.Contains(denied.Header.Get("RateLimit-Policy"), `"second";q=3;w=1`) {
		t.Fatalf("429 headers: Retry-After %q, RateLimit %q, RateLimit-Policy %q", denied.Header.Get("Retry-After"),
			denied.Header.Get("RateLimit"), denied.Header.Get("RateLimit-Policy"))
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		if r := do(t, "GET", base+"/orders", key, ""); r.StatusCode == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("still denied 2s after a 1s retry")
		}
		time.Sleep(50 * time.Millisecond) // polling real time: the window is real here
	}
}
