package testenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// AuthorizerBuild is one build of the authorizer that template.yaml deploys: the
// Backend it serves (and its name in reports), its function's logical id (the Makefile
// target is build-<LogicalID>) and its build tag (internal/config).
type AuthorizerBuild struct{ Backend, Title, LogicalID, Tag string }

// AuthorizerBuilds are the authorizer's builds, one per backend, in the reports' order.
var AuthorizerBuilds = []AuthorizerBuild{
	{"dynamodb", "DynamoDB", "AuthorizerFunction", "edgelimit.dynamodb"},
	{"upstash", "Upstash", "AuthorizerUpstashFunction", "edgelimit.upstash"},
	{"redis", "Redis", "AuthorizerRedisFunction", "edgelimit.redis"},
}

// builds caches BuildBootstrap's binaries: package path and tags -> func() (string, error).
var builds sync.Map

// BuildBootstrap builds the main package pkg (an import path, or a directory relative
// to the test's) as Lambda's provided.al2023 runtime wants it, for the host: static,
// stripped, without the RPC mode (CGO_ENABLED=0, -tags lambda.norpc, -ldflags "-s -w",
// -trimpath, as the Makefile does for arm64), with tags added to lambda.norpc (the
// authorizer's edgelimit.<backend>, say; "" adds none). It builds each package and tags once per
// test process. The binary is os.TempDir()/edgelimit-bootstrap/<hash of the
// package, the test's folder and the tags>/bootstrap, renamed into place, so a later
// run replaces it (a running copy keeps its file) instead of leaving one more behind.
func BuildBootstrap(tb testing.TB, pkg string, tags ...string) string {
	tb.Helper()
	tagList := strings.Join(slices.DeleteFunc(append([]string{"lambda.norpc"}, tags...), func(t string) bool { return t == "" }), ",")
	build, _ := builds.LoadOrStore(pkg+" "+tagList, sync.OnceValues(func() (string, error) {
		wd, _ := os.Getwd()
		sum := sha256.Sum256([]byte(pkg + "\x00" + wd + "\x00" + tagList))
		dir := filepath.Join(os.TempDir(), "edgelimit-bootstrap", hex.EncodeToString(sum[:8]))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		tmp, err := os.MkdirTemp(dir, "build-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		cmd := exec.Command("go", "build", "-tags", tagList, "-ldflags", "-s -w", "-trimpath", "-o", filepath.Join(tmp, "bootstrap"), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
		path := filepath.Join(dir, "bootstrap")
		return path, os.Rename(filepath.Join(tmp, "bootstrap"), path)
	}))
	path, err := build.(func() (string, error))()
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Lambda is a bootstrap running under the Lambda runtime interface emulator, as
// `sam local invoke` runs it.
type Lambda struct {
	URL  string // the invocations endpoint
	out  *Buffer
	stop func()
}

// StartLambda runs bootstrap under the emulator (RIE(tb)) with env added to this
// process's environment, and waits (polling, at most 20 s) until the emulator accepts
// connections. The emulator and the function stop at the end of the test. Its two
// ports are free when chosen, but another process can take one before the emulator
// binds it: an emulator that exits for a port in use is started again on new ports,
// up to 5 times.
func StartLambda(tb testing.TB, bootstrap string, env map[string]string) *Lambda {
	tb.Helper()
	for attempt := 1; ; attempt++ {
		l, portTaken := startLambda(tb, bootstrap, env)
		if l != nil {
			return l
		}
		if attempt == 5 {
			tb.Fatalf("the emulator found a port in use 5 times:\n%s", portTaken)
		}
	}
}

// startLambda starts one emulator. It returns nil and the emulator's output when the
// emulator exited because a port was in use; any other failure is fatal.
func startLambda(tb testing.TB, bootstrap string, env map[string]string) (*Lambda, string) {
	tb.Helper()
	addr, apiAddr := pickAddr(tb), pickAddr(tb)
	cmd := exec.Command(RIE(tb), "--runtime-interface-emulator-address", addr, "--runtime-api-address", apiAddr, bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	l := &Lambda{URL: "http://" + addr + "/2015-03-31/functions/function/invocations", out: &Buffer{}}
	cmd.Stdout, cmd.Stderr = l.out, l.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the emulator and its bootstrap, stopped together
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	l.stop = sync.OnceFunc(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group this test started
		<-exited
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			l.stop()
			if out := l.out.String(); strings.Contains(out, "address already in use") {
				return nil, out
			}
			tb.Fatalf("the emulator exited before it listened on %s:\n%s", addr, l.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			l.stop()
			tb.Fatalf("gave up waiting 20s for the emulator to listen on %s:\n%s", addr, l.out.String())
		}
	}
	tb.Cleanup(func() {
		l.stop()
		if tb.Failed() {
			tb.Logf("emulator output:\n%s", l.out.String())
		}
	})
	return l, ""
}

// Invoke posts payload to the function and returns the reply body and the latency.
func (l *Lambda) Invoke(tb testing.TB, payload []byte) ([]byte, time.Duration) {
	tb.Helper()
	start := time.Now()
	resp, err := http.Post(l.URL, "application/json", bytes.NewReader(payload))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	elapsed := time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("invoke: status %d, %v: %s", resp.StatusCode, err, body)
	}
	return body, elapsed
}

// Output returns what the emulator and the function printed so far.
func (l *Lambda) Output() string { return l.out.String() }

// Stop stops the emulator and the function; it is idempotent.
func (l *Lambda) Stop() { l.stop() }

// WaitFor polls cond every 20ms until it holds, for at most limit.
func WaitFor(tb testing.TB, limit time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up waiting %v for %s", limit, what)
		}
		<-tick.C
	}
}

// pickAddr chooses StartLambda's ports: freeAddr, but for a test of its retry.
var pickAddr = freeAddr

func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Buffer is a bytes.Buffer safe for concurrent writers, for a process's output or a
// logger shared by goroutines.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
