package buildcheck

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// maxTrackedBytes bounds a tracked file: the largest today is docs/console.png (about
// 240 kB); a compiled binary is tens of MB.
const maxTrackedBytes = 1 << 20

// TestNoBuildOutputTracked: no file git tracks is an executable or larger than
// maxTrackedBytes. A `go build` run inside a package folder once left a 23 MB binary
// there that a commit picked up; the root's .gitignore only covers the root's.
func TestNoBuildOutputTracked(t *testing.T) {
	root := testenv.ModuleRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git ls-files under CI: %v", err)
		}
		t.Skipf("not a git checkout, or no git: %v", err)
	}
	for _, name := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		path := filepath.Join(root, string(name))
		info, err := os.Stat(path)
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		if info.Size() > maxTrackedBytes {
			t.Errorf("%s: %d bytes tracked, more than %d: build output?", name, info.Size(), maxTrackedBytes)
		}
		if f, err := elf.Open(path); err == nil {
			f.Close()
			t.Errorf("%s: an ELF binary is tracked", name)
		}
	}
}
