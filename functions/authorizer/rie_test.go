package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// buildDir holds the binaries the tests build, once per test process.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "edgelimit-authorizer-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var builds sync.Map // package path -> *buildResult

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// build builds pkg as Lambda's provided.al2023 runtime wants it, for the host: static,
// stripped, without the RPC mode (CGO_ENABLED=0, -tags lambda.norpc, -ldflags "-s -w",
// -trimpath, as the Makefile does for arm64), once per test process.
func build(tb testing.TB, pkg, name string) string {
	tb.Helper()
	v, _ := builds.LoadOrStore(pkg, &buildResult{})
	r := v.(*buildResult)
	r.once.Do(func() {
		r.path = filepath.Join(buildDir, name, "bootstrap")
		cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-ldflags", "-s -w", "-trimpath", "-o", r.path, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			r.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r.path
}

// function is a bootstrap running under the Lambda runtime interface emulator, as
// `sam local invoke` runs it.
type function struct {
	url  string
	out  *syncBuffer // the emulator's and the function's output
	stop func()      // stops the emulator and the function; idempotent
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startFunction runs bootstrap under the emulator with env added to this process's
// environment, and waits (polling, at most 20 s) until the emulator accepts
// connections. The emulator and the function stop at the end of the test.
func startFunction(tb testing.TB, bootstrap string, env map[string]string) *function {
	tb.Helper()
	rie := testenv.RIE(tb)
	addr, apiAddr := freeAddr(tb), freeAddr(tb)
	cmd := exec.Command(rie, "--runtime-interface-emulator-address", addr, "--runtime-api-address", apiAddr, bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	f := &function{url: "http://" + addr + "/2015-03-31/functions/function/invocations", out: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = f.out, f.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the emulator and its bootstrap, stopped together
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	var once sync.Once
	f.stop = func() {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group this test started
			_ = cmd.Wait()
		})
	}
	tb.Cleanup(func() {
		f.stop()
		if tb.Failed() {
			tb.Logf("emulator output:\n%s", f.out.String())
		}
	})
	waitFor(tb, 20*time.Second, "the emulator to listen on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return f
}

// waitFor polls cond every 20ms until it holds, for at most limit.
func waitFor(tb testing.TB, limit time.Duration, what string, cond func() bool) {
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

// invoke posts payload to the function and returns the reply body and latency.
func (f *function) invoke(tb testing.TB, payload []byte) ([]byte, time.Duration) {
	tb.Helper()
	start := time.Now()
	resp, err := http.Post(f.url, "application/json", bytes.NewReader(payload))
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

var (
	reportInit = regexp.MustCompile(`REPORT RequestId: \S+\s+Init Duration: ([0-9.]+) ms`)
	rapidInit  = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)
)

// initDurations waits (at most 5 s) for the emulator's report of the first invocation
// and returns the two init durations it logs, in milliseconds: "Init Duration" of the
// REPORT line (what `sam local invoke` prints) and the runtime's own init, from the
// start of the bootstrap to its first request for an event ("INIT REPORT durationMs").
func (f *function) initDurations(tb testing.TB) (report, runtime float64) {
	tb.Helper()
	waitFor(tb, 5*time.Second, "the emulator's REPORT line", func() bool { return reportInit.MatchString(f.out.String()) })
	out := f.out.String()
	report, _ = strconv.ParseFloat(reportInit.FindStringSubmatch(out)[1], 64)
	if m := rapidInit.FindStringSubmatch(out); m != nil {
		runtime, _ = strconv.ParseFloat(m[1], 64)
	}
	return report, runtime
}
