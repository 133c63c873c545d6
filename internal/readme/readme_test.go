// Package readme runs the README's quickstart, so the two commands it gives a newcomer
// cannot rot: `go run ./cmd/edgelimit dev` must print a demo key and serve it, and the
// README's curl line must get 200 five times and then 429 with Retry-After; `make test`
// must be the Makefile's target that .ci/run calls.
package readme

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shellBlocks returns the ```sh blocks of the README's "Two commands" section.
func shellBlocks(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	start := strings.Index(section, "## Two commands")
	if start < 0 {
		t.Fatal(`README.md has no "## Two commands" section`)
	}
	section = section[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, strings.TrimSpace(m[1]))
	}
	if len(blocks) != 3 {
		t.Fatalf("the quickstart has %d sh blocks, want 3 (run, curl, test): %q", len(blocks), blocks)
	}
	return blocks
}

func TestQuickstart(t *testing.T) {
	blocks := shellBlocks(t)
	run, curl, test := blocks[0], blocks[1], blocks[2]
	args, ok := strings.CutPrefix(run, "go run ./cmd/edgelimit ")
	if !ok {
		t.Fatalf("the run command is %q, want go run ./cmd/edgelimit ...", run)
	}
	addr, key := startDev(t, strings.Fields(args))
	line := strings.NewReplacer("<the demo key>", key, "127.0.0.1:3000", addr).Replace(curl)
	for i := 1; i <= 6; i++ {
		out, err := exec.Command("bash", "-c", line).Output() // curl's progress goes to stderr
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		status := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
		want := map[bool]string{true: "200", false: "429"}[i <= 5]
		if len(status) < 2 || status[1] != want {
			t.Fatalf("request %d: %q, want HTTP %s", i, strings.SplitN(string(out), "\n", 2)[0], want)
		}
		if i == 6 && !regexp.MustCompile(`(?im)^retry-after: \d+`).Match(out) {
			t.Fatalf("the 429 has no Retry-After:\n%s", out)
		}
	}
	if test != "make test" {
		t.Fatalf("the test command is %q, want make test", test)
	}
	checkTestTarget(t)
}

// startDev builds the CLI (go run would leave its child behind when stopped), runs it
// with the README's arguments on a free port, and returns its address and demo key.
func startDev(t *testing.T, args []string) (addr, key string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "edgelimit")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/edgelimit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append(args, "--listen", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "EDGELIMIT_BACKEND=", "EDGELIMIT_TENANTS_FILE=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("edgelimit dev did not stop within 10s of SIGINT")
		}
	})
	if addr, key = readBanner(stdout); addr == "" || key == "" {
		t.Fatal("edgelimit dev printed no address or demo key")
	}
	return addr, key
}

// readBanner reads what `edgelimit dev` prints until its address and demo key ("" when
// it ends first), then discards the rest of stdout.
func readBanner(stdout io.Reader) (addr, key string) {
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && (addr == "" || key == "") {
		if rest, ok := strings.CutPrefix(sc.Text(), "edgelimit dev: listening on http://"); ok {
			addr = strings.Fields(rest)[0]
		}
		if rest, ok := strings.CutPrefix(sc.Text(), "demo key: "); ok {
			key = rest
		}
	}
	go io.Copy(io.Discard, stdout)
	return addr, key
}

// checkTestTarget: the Makefile has the test target and .ci/run calls it.
func checkTestTarget(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^test:`).Match(mk) {
		t.Fatal("the Makefile has no test target")
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^make test$`).Match(ci) {
		t.Fatal(".ci/run does not call make test")
	}
}
