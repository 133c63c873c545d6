package readme

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// TestDevCommands runs the README's one-command setups of `edgelimit dev` on the real
// protocols (`make dev-upstash`, `make dev-dynamodb`, `make dev-redis`) as a newcomer
// would, each on a free port, and reaches a 429 with the demo key; then stops it with
// SIGINT to its process group (Ctrl-C), which must stop the services it started. They
// start services of their own, from the tools folder the test services came from: the
// test runs only where those run (`make test`).
func TestDevCommands(t *testing.T) {
	testenv.UpstashURL(t)
	testenv.DynamoDBURL(t)
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	section = section[strings.Index(section, "## `edgelimit dev`"):]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if block == nil || strings.TrimSpace(block[1]) != "make dev-upstash\nmake dev-dynamodb\nmake dev-redis" {
		t.Fatalf("the README's edgelimit dev section shows %q, want make dev-upstash, make dev-dynamodb and make dev-redis", block)
	}
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		t.Run(line, func(t *testing.T) { runDevCommand(t, strings.Fields(line)) })
	}
}

func runDevCommand(t *testing.T, words []string) {
	cmd := exec.Command(words[0], append(words[1:], "DEV_FLAGS=--listen 127.0.0.1:0")...)
	cmd.Dir = "../.."
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer interrupt(t, cmd, stderr)
	addr, key := readBanner(stdout)
	if addr == "" || key == "" {
		t.Fatalf("%s printed no address or demo key; stderr:\n%s", strings.Join(words, " "), stderr)
	}
	for i := 1; i <= 6; i++ {
		req, _ := http.NewRequest("GET", "http://"+addr+"/hello", nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := map[bool]int{true: 200, false: 429}[i <= 5]
		// The demo rule's denial waits for its 10 s window; the fail mode's (a store
		// slower than the latency budget) says 1.
		retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != want || i == 6 && retry < 2 {
			t.Fatalf("request %d: %s (Retry-After %q), want %d (from the demo rule); stderr:\n%s", i, resp.Status, resp.Header.Get("Retry-After"), want, stderr)
		}
	}
}

// interrupt sends SIGINT to the command's process group, as Ctrl-C would, and waits
// (at most a minute) for it to end; the services it started must be gone.
func interrupt(t *testing.T, cmd *exec.Cmd, stderr *testenv.Buffer) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Errorf("still running a minute after SIGINT; stderr:\n%s", stderr)
		return
	}
	logs := stderr.String()
	started := regexp.MustCompile(`services: starting (.+) on 127\.0\.0\.1:(\d+)`).FindAllStringSubmatch(logs, -1)
	if len(started) == 0 {
		t.Errorf("no service started; stderr:\n%s", logs)
	}
	for _, m := range started {
		if pid := processWithPort(t, m[2]); pid != "" {
			t.Errorf("%s (pid %s, port %s) still runs after the command ended; stderr:\n%s", m[1], pid, m[2], logs)
		}
	}
}

// processWithPort returns the pid of a process whose command line gives port as its
// own (DynamoDB Local -port N, upstash-local --listen 127.0.0.1:N, redis-server's
// title "redis-server 127.0.0.1:N"), or "". It reads /proc: a port may be reused by another process at
// once, a command line is not.
func processWithPort(t *testing.T, port string) string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		args := strings.Split(string(b), "\x00")
		for i, a := range args {
			addr := "127.0.0.1:" + port // --listen ADDR, or redis-server's title "redis-server ADDR"
			if a == addr || strings.HasSuffix(a, " "+addr) || (a == "--port" || a == "-port") && i+1 < len(args) && args[i+1] == port {
				return filepath.Base(filepath.Dir(f))
			}
		}
	}
	return ""
}
