package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// generate runs the suites in root and writes the report, its charts and README.md's
// figures block. count, when positive, replaces each suite's -count.
func generate(root string, count int, log io.Writer) error {
	start := time.Now()
	r := &report{runs: map[string]run{}}
	r.machine = machine{cores: runtime.NumCPU(), goVersion: runtime.Version(), loadBefore: loadavg(),
		date: start.UTC().Format("2006-01-02")}
	for _, s := range suites {
		out, err := runSuite(root, s, count, log)
		if err != nil {
			return err
		}
		parsed, err := parse(bytes.NewReader(out))
		if err != nil {
			return err
		}
		r.runs[s.name] = parsed
		if r.machine.cpu == "" {
			r.machine.cpu, r.machine.goos, r.machine.goarch = parsed.cpu, parsed.goos, parsed.goarch
		}
	}
	var err error
	if r.sizes, err = bootstrapSizes(root, log); err != nil {
		return err
	}
	r.machine.loadAfter, r.machine.minutes = loadavg(), time.Since(start).Minutes()
	return r.write(root)
}

// write writes docs/benchmarks.md, its charts and README.md's figures block.
func (r *report) write(root string) error {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return err
	}
	updated, err := replaceBlock(string(readme), r.readmeBlock())
	if err != nil {
		return err
	}
	files := map[string]string{
		"docs/benchmarks.md":     r.markdown(),
		"docs/bench-ratios.svg":  r.ratioChart(),
		"docs/bench-upstash.svg": r.upstashChart(),
		"README.md":              updated,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runSuite runs s's benchmarks with go test and returns its output, which it also
// copies to log as it comes.
func runSuite(root string, s suite, count int, log io.Writer) ([]byte, error) {
	if count <= 0 {
		count = s.count
	}
	args := []string{"test", s.pkg, "-run", "^$", "-bench", s.bench, "-benchmem", "-benchtime", s.benchtime,
		"-count", strconv.Itoa(count), "-timeout", "20m"}
	fmt.Fprintf(log, "benchreport: go %s\n", strings.Join(args, " "))
	var out bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, log), log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("benchreport: go test %s: %w", s.pkg, err)
	}
	return out.Bytes(), nil
}

// bootstrapSizes builds each backend's authorizer as its `make build-<LogicalId>`
// target does (linux/arm64, stripped) and the hello-world authorizer the same way, and
// returns their sizes.
func bootstrapSizes(root string, log io.Writer) (sizes, error) {
	dir, err := os.MkdirTemp("", "benchreport-")
	if err != nil {
		return sizes{}, err
	}
	defer os.RemoveAll(dir)
	env := cleanEnv()
	out := sizes{authorizer: map[string]int64{}}
	for _, b := range testenv.AuthorizerBuilds {
		art := filepath.Join(dir, b.Backend)
		mk := exec.Command("make", "--no-print-directory", "build-"+b.LogicalID, "ARTIFACTS_DIR="+art)
		mk.Dir, mk.Env, mk.Stdout, mk.Stderr = root, env, log, log
		if err := mk.Run(); err != nil {
			return sizes{}, fmt.Errorf("benchreport: make build-%s: %w", b.LogicalID, err)
		}
		st, err := os.Stat(filepath.Join(art, "bootstrap"))
		if err != nil {
			return sizes{}, err
		}
		out.authorizer[b.Backend] = st.Size()
	}
	hello := filepath.Join(dir, "hello")
	gb := exec.Command("go", "build", "-tags", "lambda.norpc", "-ldflags", "-s -w", "-trimpath", "-o", hello, "./internal/authorizer/testdata/hello")
	gb.Dir, gb.Env, gb.Stdout, gb.Stderr = root, append(env, "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64"), log, log
	if err := gb.Run(); err != nil {
		return sizes{}, fmt.Errorf("benchreport: go build hello: %w", err)
	}
	h, err := os.Stat(hello)
	if err != nil {
		return sizes{}, err
	}
	out.hello = h.Size()
	return out, nil
}

// cleanEnv is this process's environment less what would change a build.
func cleanEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"GOOS", "GOARCH", "CGO_ENABLED", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "ARTIFACTS_DIR", "LAMBDA_GOARCH"}, name)
	})
}

// loadavg returns the 1, 5 and 15 minute load averages, or "unknown".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return "unknown"
}
