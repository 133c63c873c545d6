package admin

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every problem type URI the API emits resolves: it names a file of this repository
// (ProblemTypeBase is a GitHub blob URL of the main branch) and a fragment that is the
// anchor GitHub gives one of that file's headings. Before, the types pointed at
// docs/openapi.yaml#problem-..., anchors that a rendered YAML file does not have.
func TestProblemTypesResolveToAnchors(t *testing.T) {
	const repo = "https://github.com/edgelimit/edgelimit/blob/main/"
	file, ok := strings.CutPrefix(ProblemTypeBase, repo)
	file, _, hasFragment := strings.Cut(file, "#")
	if !ok || !hasFragment || !strings.HasSuffix(ProblemTypeBase, "#") {
		t.Fatalf("ProblemTypeBase %q: want %s<file>#", ProblemTypeBase, repo)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(file)))
	if err != nil {
		t.Fatalf("ProblemTypeBase names %s: %v", file, err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`).FindAllStringSubmatch(string(doc), -1) {
		anchors[githubAnchor(m[1])] = true
	}
	slugs := slices.Sorted(maps.Keys(problems))
	for _, slug := range slugs {
		if !anchors[slug] {
			t.Errorf("problem type %s%s: %s has no heading with the anchor %q", ProblemTypeBase, slug, file, slug)
		}
	}
}

// githubAnchor is the fragment GitHub renders for a Markdown heading: lower case,
// punctuation other than '-' and '_' dropped, spaces turned into '-'.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
