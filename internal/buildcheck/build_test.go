package buildcheck

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

const authorizerPkg = "github.com/edgelimit/edgelimit/functions/authorizer"

// The template's functions, their Makefile targets' packages and build tags: the
// authorizer once per backend, with that backend alone.
var functions = []struct{ logicalID, pkg, tags string }{
	{"AuthorizerFunction", authorizerPkg, "lambda.norpc,edgelimit.dynamodb"},
	{"AdminFunction", "github.com/edgelimit/edgelimit/functions/admin", "lambda.norpc"},
	{"AuthorizerUpstashFunction", authorizerPkg, "lambda.norpc,edgelimit.upstash"},
	{"AuthorizerRedisFunction", authorizerPkg, "lambda.norpc,edgelimit.redis"},
}

func TestBuildTargets(t *testing.T) {
	root := testenv.ModuleRoot(t)
	requireTools(t)
	if testing.Short() {
		t.Skip("-short: skipping the Lambda builds")
	}
	tests := []struct {
		name     string
		fn       int      // index in functions
		goarch   string   // the LAMBDA_GOARCH make variable; "" for the Makefile's default
		env      []string // exported to make
		machine  elf.Machine
		wantArch string
	}{
		{"AuthorizerFunction default", 0, "", nil, elf.EM_AARCH64, "arm64"},
		{"AdminFunction default", 1, "", nil, elf.EM_AARCH64, "arm64"},
		{"AuthorizerFunction LAMBDA_GOARCH=amd64", 0, "amd64", nil, elf.EM_X86_64, "amd64"},
		// The environment does not choose the target: the template deploys linux/arm64.
		{"AuthorizerFunction with GOARCH=amd64 GOOS=darwin exported", 0, "", []string{"GOARCH=amd64", "GOOS=darwin", "LAMBDA_GOARCH=amd64"}, elf.EM_AARCH64, "arm64"},
		{"AuthorizerUpstashFunction default", 2, "", nil, elf.EM_AARCH64, "arm64"},
		{"AuthorizerRedisFunction default", 3, "", nil, elf.EM_AARCH64, "arm64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fn := functions[tt.fn]
			dir := t.TempDir()
			args := []string{"build-" + fn.logicalID, "ARTIFACTS_DIR=" + dir}
			if tt.goarch != "" {
				args = append(args, "LAMBDA_GOARCH="+tt.goarch)
			}
			if out, err := runMake(root, tt.env, args...); err != nil {
				t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			bootstrap := filepath.Join(dir, "bootstrap")
			checkELF(t, bootstrap, tt.machine)
			checkBuildInfo(t, bootstrap, fn.pkg, fn.tags, tt.wantArch)
			checkTZData(t, bootstrap)
		})
	}
}

// Without ARTIFACTS_DIR the targets stop with a message instead of writing /bootstrap.
// A stand-in go on PATH makes sure nothing is built should the guard go missing.
func TestBuildTargetNeedsArtifactsDir(t *testing.T) {
	root := testenv.ModuleRoot(t)
	requireTools(t)
	bin := t.TempDir()
	fakeGo := "#!/bin/sh\necho 'go was called' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	out, err := runMake(root, nil, "build-"+functions[0].logicalID, "ARTIFACTS_DIR=")
	if err == nil || strings.Contains(string(out), "go was called") {
		t.Fatalf("make without ARTIFACTS_DIR: %v; want it to stop before go build:\n%s", err, out)
	}
	if !strings.Contains(string(out), "ARTIFACTS_DIR is not set") {
		t.Errorf("make without ARTIFACTS_DIR: %v, want a message naming ARTIFACTS_DIR:\n%s", err, out)
	}
}

// checkELF: a Linux executable for machine, statically linked (no interpreter, no
// dynamic section: provided.al2023 runs it as is) and stripped (-s -w: no symbol table,
// no DWARF).
func checkELF(t *testing.T, path string, machine elf.Machine) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("bootstrap is not an ELF file: %v", err)
	}
	defer f.Close()
	if f.Machine != machine || f.Class != elf.ELFCLASS64 {
		t.Errorf("bootstrap: %v %v, want %v ELFCLASS64", f.Machine, f.Class, machine)
	}
	if f.Type != elf.ET_EXEC {
		t.Errorf("bootstrap: type %v, want ET_EXEC", f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("bootstrap has a %v program header: not statically linked", p.Type)
		}
	}
	for _, s := range f.Sections {
		if s.Name == ".symtab" || strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			t.Errorf("bootstrap has a %s section: not stripped (-ldflags \"-s -w\")", s.Name)
		}
	}
	if info, err := os.Stat(path); err == nil && info.Mode()&0o111 == 0 {
		t.Errorf("bootstrap is not executable: %v", info.Mode())
	}
}

// checkBuildInfo: the flags the Makefile promises, as the binary records them.
func checkBuildInfo(t *testing.T, path, pkg, tags, goarch string) {
	t.Helper()
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatalf("bootstrap: no Go build info: %v", err)
	}
	if bi.Path != pkg {
		t.Errorf("bootstrap is %s, want %s", bi.Path, pkg)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	want := map[string]string{
		"GOOS": "linux", "GOARCH": goarch, "CGO_ENABLED": "0",
		"-tags": tags, "-trimpath": "true",
	}
	for k, v := range want {
		if settings[k] != v {
			t.Errorf("bootstrap built with %s=%q, want %q", k, settings[k], v)
		}
	}
	// -trimpath leaves -ldflags out of the build info; checkELF sees what -s -w did.
	if ldflags, ok := settings["-ldflags"]; ok && ldflags != "-s -w" {
		t.Errorf("bootstrap built with -ldflags=%q, want \"-s -w\"", ldflags)
	}
}

// checkTZData: the binary embeds the time zone database, pkg/tenant's zoneinfo folder
// (some of its zone files, verbatim: one per continent, and the sample tenants' zone).
func checkTZData(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, zone := range []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "Africa/Cairo", "Australia/Lord_Howe"} {
		file, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "pkg", "tenant", "zoneinfo", zone))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, file) {
			t.Errorf("bootstrap does not embed the time zone database (%s): load zones with tenant.LoadLocation", zone)
		}
	}
}

// runMake runs make in dir with the environment of the test, less what would change
// the build (the caller's GOOS/GOARCH/CGO_ENABLED and a parent make's flags), plus env.
func runMake(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "GOOS", "GOARCH", "CGO_ENABLED", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "ARTIFACTS_DIR", "LAMBDA_GOARCH":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd.CombinedOutput()
}

// requireTools skips the test when make or go is missing, or fails it when CI is set:
// a CI run must not pass by skipping.
func requireTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not on PATH under CI: %v", tool, err)
			}
			t.Skipf("%s is not on PATH: %v", tool, err)
		}
	}
}
