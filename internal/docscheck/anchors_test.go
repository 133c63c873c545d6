package docscheck

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

var (
	// mdLinks are Markdown links to a file of the repository or to an anchor: the target
	// (no scheme), and its #fragment.
	mdLinks  = regexp.MustCompile(`\]\(([^)#:\s]*)(#[^)\s]*)?\)`)
	headings = regexp.MustCompile("(?m)^#{1,6} (.+)$")
)

// anchor is the id GitHub gives a heading: lower case, without punctuation but - and
// _, spaces as dashes.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestMarkdownLinksResolve: every relative link of the README and docs/*.md names a
// file of the repository and, with a #fragment, one of that Markdown file's headings.
// Moving a section from one file to another cannot leave a link behind.
func TestMarkdownLinksResolve(t *testing.T) {
	root := testenv.ModuleRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(docs, filepath.Join(root, "README.md")) {
		rel, _ := filepath.Rel(root, f)
		text := read(t, f)
		for _, m := range mdLinks.FindAllStringSubmatch(text, -1) {
			target := path.Join(path.Dir(filepath.ToSlash(rel)), m[1])
			if m[1] == "" {
				target = filepath.ToSlash(rel)
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s: link %s%s: %v", rel, m[1], m[2], err)
				continue
			}
			if m[2] != "" && strings.HasSuffix(target, ".md") && !hasAnchor(read(t, filepath.Join(root, target)), m[2][1:]) {
				t.Errorf("%s: link %s%s: %s has no such heading", rel, m[1], m[2], target)
			}
		}
	}
}

func hasAnchor(text, id string) bool {
	for _, h := range headings.FindAllStringSubmatch(text, -1) {
		if anchor(h[1]) == id {
			return true
		}
	}
	return false
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
