package readme

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// TestRuleExamples parses every rule the Rules section of docs/reference.md shows: an
// example a newcomer copies must be valid.
func TestRuleExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	section = section[strings.Index(section, "## Rules"):]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	n := 0
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1) {
		for _, line := range strings.Split(strings.TrimSpace(m[1]), "\n") {
			if _, err := limiter.ParseRule([]byte(line)); err != nil {
				t.Errorf("docs/reference.md rule %s: %v", line, err)
			}
			n++
		}
	}
	if n < 5 {
		t.Fatalf("found %d rule examples in the Rules section of docs/reference.md, want one of each algorithm", n)
	}
}
