package docscheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

var (
	// urls are left out: a link to another site names its own files.
	urls = regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^\s)"'<>\x60]+`)
	// mdRefs are path-like words ending in .md.
	mdRefs = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)
	// outside are references to folders beside the repository, whatever they hold.
	outside = []string{".." + "/shared", "/work/" + "shared"}
)

// badRefs lists what text (the file at relative path name) refers to that tracked does
// not hold: Markdown files, resolved from the file's folder or from the repository's
// root, and anything under a folder outside the repository.
func badRefs(name, text string, tracked map[string]bool) []string {
	var bad []string
	for i, line := range strings.Split(text, "\n") {
		line = urls.ReplaceAllString(line, "")
		for _, ref := range mdRefs.FindAllString(line, -1) {
			fromDir := path.Join(path.Dir(name), ref)
			if !tracked[fromDir] && !tracked[path.Clean(ref)] {
				bad = append(bad, fmt.Sprintf("%s:%d: %s is not in the repository (the design is docs/design.md)", name, i+1, ref))
			}
		}
		for _, o := range outside {
			if strings.Contains(line, o) {
				bad = append(bad, fmt.Sprintf("%s:%d: refers to %s, outside the repository", name, i+1, o))
			}
		}
	}
	return bad
}

// TestNoReferenceOutsideTheRepository reads every tracked file.
func TestNoReferenceOutsideTheRepository(t *testing.T) {
	root := testenv.ModuleRoot(t)
	files := trackedFiles(t, root)
	tracked := map[string]bool{}
	for _, f := range files {
		tracked[f] = true
	}
	if !tracked["docs/design.md"] {
		t.Fatal("docs/design.md is not in the repository")
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			continue // binary
		}
		for _, b := range badRefs(f, string(data), tracked) {
			t.Error(b)
		}
	}
}

// trackedFiles lists the repository's files (slash-separated, relative to root): git's
// index and the untracked files it does not ignore, so a new file is checked before it
// is committed.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git ls-files under CI: %v", err)
		}
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// TestBadRefs: the check itself finds what it should, and nothing else.
func TestBadRefs(t *testing.T) {
	tracked := map[string]bool{"README.md": true, "docs/design.md": true, "docs/backends.md": true}
	md := ".md" // split from the names, so that this file does not trip the check
	design, style := "DESIGN"+md, "STYLE"+md
	tests := []struct {
		name, file, text string
		bad              int
	}{
		{"the design from the root", "pkg/x/doc.go", "// see docs/design.md", 0},
		{"a relative link in docs", "docs/backends.md", "[the design](design" + md + ")", 0},
		{"the README from a test", "internal/readme/x_test.go", `os.ReadFile("../../README.md")`, 0},
		{"a URL", "README.md", "see https://github.com/aws/aws-sam-cli/blob/develop/designs/sam_build_cmd.md", 0},
		{"the old design at the root", "docs/contracts.md", "where the code departs from " + design, 1},
		{"the old design from a comment", "pkg/x/y.go", "// as " + design + " names them", 1},
		{"a style guide", "pkg/x/y.go", "// see " + style, 1},
		{"a folder outside", "README.md", "read " + outside[0] + "/notes.txt", 1},
		{"a missing doc", "README.md", "[x](docs/nothing" + md + ")", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := badRefs(tt.file, tt.text, tracked); len(got) != tt.bad {
				t.Errorf("badRefs(%q, %q) = %q, want %d", tt.file, tt.text, got, tt.bad)
			}
		})
	}
}
