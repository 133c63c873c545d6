package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

// every (sub)command, as the words that name it.
var everyCommand = [][]string{
	{}, {"dev"}, {"simulate"}, {"keys"}, {"keys", "new"}, {"keys", "hash"}, {"apply"}, {"export"}, {"upstash-local"}, {"version"},
}

// TestEveryCommandIsCovered: the table above names every command of `commands`.
func TestEveryCommandIsCovered(t *testing.T) {
	for name := range commands {
		if !slices.ContainsFunc(everyCommand, func(c []string) bool { return len(c) > 0 && c[0] == name }) {
			t.Errorf("command %q is missing from everyCommand", name)
		}
		if !slices.Contains(commandOrder, name) {
			t.Errorf("command %q is missing from commandOrder (the usage)", name)
		}
	}
}

// TestHelp: -h, --help and a lone "help" after every command print its usage to
// stdout, nothing to stderr, and exit 0; so does `edgelimit help COMMAND`.
func TestHelp(t *testing.T) {
	for _, words := range everyCommand {
		want := "usage: edgelimit " + strings.Join(words, " ")
		if len(words) == 0 {
			want = "usage: edgelimit COMMAND"
		}
		asks := [][]string{append(slices.Clone(words), "-h"), append(slices.Clone(words), "--help"), append(slices.Clone(words), "help")}
		if len(words) > 0 {
			asks = append(asks, append([]string{"help"}, words...)) // help keys new, too
		}
		for _, args := range asks {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := runCapture(t, "", args...)
				if code != 0 || !strings.Contains(stdout, want) || stderr != "" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 0, the usage (%q) on stdout, nothing on stderr", code, stdout, stderr, want)
				}
			})
		}
	}
}

// TestUsageErrors: a bad flag or argument names the problem on stderr, with the
// usage, prints nothing on stdout, and exits 2.
func TestUsageErrors(t *testing.T) {
	t.Setenv(upstashrest.EnvToken, "") // upstash-local without --token: no token
	tests := []struct {
		args    []string
		problem string
	}{
		{nil, "edgelimit: missing command"},
		{[]string{"nope"}, `edgelimit: unknown command "nope"`},
		{[]string{"help", "nope"}, `edgelimit: unknown command "nope"`},
		{[]string{"help", "dev", "extra"}, `edgelimit: help: unexpected argument "extra"`},
		{[]string{"--nope"}, `edgelimit: unknown command "--nope"`},
		{[]string{"dev", "extra"}, `edgelimit dev: unexpected argument "extra"`},
		{[]string{"dev", "--nope"}, "edgelimit dev: flag provided but not defined: -nope"},
		{[]string{"dev", "--listen"}, "edgelimit dev: flag needs an argument: -listen"},
		{[]string{"dev", "--listen", "0.0.0.0:3000"}, `edgelimit dev: --listen "0.0.0.0:3000": serve on a loopback address`},
		{[]string{"dev", "--backend", "mongo"}, `edgelimit dev: --backend "mongo": want one of memory`},
		{[]string{"dev", "--upstream", "ftp://x"}, `edgelimit dev: --upstream "ftp://x": want an absolute http:// or https:// URL`},
		{[]string{"dev", "--upstream", "127.0.0.1:8080"}, `edgelimit dev: --upstream "127.0.0.1:8080": want an absolute`},
		{[]string{"dev", "--upstream", "http:///path"}, `edgelimit dev: --upstream "http:///path": want an absolute`},
		{[]string{"help", "keys", "rotate"}, `edgelimit: help: unexpected argument "rotate"`},
		{[]string{"help", "keys", "new", "extra"}, `edgelimit: help: unexpected argument "extra"`},
		{[]string{"--version", "extra"}, `edgelimit version: unexpected argument "extra"`},
		{[]string{"simulate", "--rule", `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`}, "edgelimit simulate: --trace is required"},
		{[]string{"simulate", "--trace", "-"}, "edgelimit simulate: --rule is required"},
		{[]string{"simulate", "--nope"}, "edgelimit simulate: flag provided but not defined: -nope"},
		{[]string{"simulate", "--trace", "-", "--rule", "{}", "extra"}, `edgelimit simulate: unexpected argument "extra"`},
		{[]string{"keys"}, "edgelimit keys: missing subcommand: new or hash"},
		{[]string{"keys", "rotate"}, `edgelimit keys: unknown subcommand "rotate"`},
		{[]string{"keys", "--nope"}, "edgelimit keys: flag provided but not defined: -nope"},
		{[]string{"keys", "new"}, "edgelimit keys new: --tenant is required"},
		{[]string{"keys", "new", "--tenant", "a", "extra"}, `edgelimit keys new: unexpected argument "extra"`},
		{[]string{"keys", "hash", "--nope"}, "edgelimit keys hash: flag provided but not defined: -nope"},
		{[]string{"keys", "hash", "a", "b"}, "edgelimit keys hash: one KEY at most, got 2 arguments"},
		{[]string{"upstash-local", "--nope"}, "edgelimit upstash-local: flag provided but not defined: -nope"},
		{[]string{"upstash-local", "extra"}, `edgelimit upstash-local: unexpected argument "extra"`},
		{[]string{"version", "extra"}, `edgelimit version: unexpected argument "extra"`},
		{[]string{"apply", "--admin", "http://127.0.0.1:1"}, "edgelimit apply: -f is required"},
		{[]string{"apply", "-f", "x.yaml"}, "edgelimit apply: --admin is required"},
		{[]string{"apply", "-f", "x.yaml", "--admin", "ftp://x", "extra"}, `edgelimit apply: unexpected argument "extra"`},
		{[]string{"apply", "-f", "/nonexistent/x.yaml", "--admin", "http://127.0.0.1:1"}, `edgelimit apply: -f "/nonexistent/x.yaml": no such file`},
		{[]string{"apply", "-f", "-", "--admin", "ftp://x"}, `edgelimit apply: --admin "ftp://x": want the admin API's base URL`},
		{[]string{"export"}, "edgelimit export: --admin is required"},
		{[]string{"export", "--admin", "http://127.0.0.1:1", "--format", "toml"}, `edgelimit export: --format "toml": want yaml or json`},
		{[]string{"export", "--admin", "127.0.0.1:3000"}, `edgelimit export: --admin "127.0.0.1:3000": want the admin API's base URL`},
		// A flag's bad value is a usage error too, named by the flag.
		{[]string{"simulate", "--trace", "-", "--rule", `{}`}, "edgelimit simulate: --rule 1: algorithm"},
		{[]string{"simulate", "--trace", "-", "--rule", `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`, "--timezone", "Mars"}, `edgelimit simulate: --timezone "Mars": not an IANA time zone`},
		{[]string{"simulate", "--trace", "/nonexistent/trace", "--rule", `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`}, `edgelimit simulate: --trace "/nonexistent/trace": no such file or directory`},
		{[]string{"keys", "new", "--tenant", "Not Valid"}, `edgelimit keys new: --tenant "Not Valid": a tenant id is`},
		{[]string{"upstash-local", "--token", "x", "--listen", "0.0.0.0:8079"}, "edgelimit upstash-local: --listen:"},
		{[]string{"upstash-local"}, "edgelimit upstash-local: no token: pass --token or set "},
		{[]string{"version", "--short"}, "edgelimit version: flag provided but not defined: -short"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCapture(t, "", tt.args...)
			if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tt.problem) || !strings.Contains(stderr, "usage: edgelimit") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout, %q then the usage on stderr", code, stdout, stderr, tt.problem)
			}
			if strings.Contains(stderr, "<nil>") {
				t.Errorf("stderr says <nil>: %q", stderr)
			}
		})
	}
}

// TestVersion: `edgelimit version` and `edgelimit --version` print one line, the same.
func TestVersion(t *testing.T) {
	code, stdout, stderr := runCapture(t, "", "version")
	if code != 0 || !strings.HasPrefix(stdout, "edgelimit ") || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, flag := range []string{"--version", "-version"} {
		if code, out, errOut := runCapture(t, "", flag); code != 0 || out != stdout || errOut != "" {
			t.Errorf("edgelimit %s: exit %d, stdout %q, stderr %q; want 0 and %q", flag, code, out, errOut, stdout)
		}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/edgelimit/edgelimit", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2027-01-01T00:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got := formatVersion(bi); !strings.HasPrefix(got, "edgelimit v1.2.3 (revision 0123abc, 2027-01-01T00:00:00Z, modified) go1.99 ") {
		t.Errorf("formatVersion = %q", got)
	}
	bi.Settings = nil
	if got := formatVersion(bi); !strings.HasPrefix(got, "edgelimit v1.2.3 go1.99 ") {
		t.Errorf("without VCS settings: %q", got)
	}
	if got := formatVersion(nil); !strings.HasPrefix(got, "edgelimit (unknown) go") {
		t.Errorf("without build info: %q", got)
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildBinary builds edgelimit once per test run (go build, which records the VCS
// revision) and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "edgelimit-cli-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "edgelimit")
		if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// TestVersionOfBuiltBinary: a binary that recorded a VCS revision prints it.
func TestVersionOfBuiltBinary(t *testing.T) {
	bin := buildBinary(t)
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	rev := ""
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			rev = s.Value
		}
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "edgelimit "+info.Main.Version) {
		t.Errorf("edgelimit version printed %q, want the module version %q", out, info.Main.Version)
	}
	if rev == "" {
		t.Skipf("the build recorded no VCS revision (go build does not stamp a git worktree, whose .git is a file): printed %q", out)
	}
	if !strings.Contains(string(out), "(revision "+rev) {
		t.Errorf("edgelimit version printed %q, want revision %s", out, rev)
	}
}
