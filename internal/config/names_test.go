package config_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// TestCheckNamesRefusesAMisspeltVariable pins the bug of EDGELIMIT_BACKND=memory, which
// started with every default: an unknown EDGELIMIT_* name fails, naming the closest.
func TestCheckNamesRefusesAMisspeltVariable(t *testing.T) {
	tests := []struct{ set, closest string }{
		{"EDGELIMIT_BACKND=memory", "EDGELIMIT_BACKEND"},
		{"EDGELIMIT_LATENCY_BUGDET=50ms", "EDGELIMIT_LATENCY_BUDGET"},
		{"EDGELIMIT_REDIS_ADDRESS=127.0.0.1:6379", "EDGELIMIT_REDIS_ADDR"},
		{"EDGELIMIT_config_ttl=0", "EDGELIMIT_CONFIG_TTL"},
	}
	for _, tt := range tests {
		name, _, _ := strings.Cut(tt.set, "=")
		err := config.CheckNames([]string{"HOME=/root", "EDGELIMIT_BACKEND=memory", tt.set})
		if err == nil || !strings.Contains(err.Error(), name+" is not a variable") || !strings.Contains(err.Error(), "did you mean "+tt.closest+"?") {
			t.Errorf("%s: %v; want an error naming %s and %s", tt.set, err, name, tt.closest)
		}
	}
}

// TestCheckNamesLetsKnownAndScriptNamesPass: every name Load reads, the test scripts'
// own, and names without the EDGELIMIT_ prefix pass.
func TestCheckNamesLetsKnownAndScriptNamesPass(t *testing.T) {
	environ := []string{"PATH=/bin", "AWS_REGION=eu-west-1", "UPSTASH_REDIS_REST_URL=http://127.0.0.1:1",
		"EDGELIMIT_TEST_REDIS_ADDR=127.0.0.1:1", "EDGELIMIT_TOOLS=/tmp/tools", "EDGELIMIT_SERVICES=redis",
		"EDGELIMIT_SERVICES_TIMEOUT=60"}
	for _, name := range readmeNames(t) {
		environ = append(environ, name+"=x")
	}
	if err := config.CheckNames(environ); err != nil {
		t.Fatal(err)
	}
	if err := config.CheckNames(nil); err != nil {
		t.Fatal(err)
	}
}

// readmeNames are the EDGELIMIT_* names of the Configuration table (docs/reference.md).
func readmeNames(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(b), "## Configuration")
	table, _, _ = strings.Cut(table, "\n## ")
	var names []string
	for _, m := range regexp.MustCompile("`(EDGELIMIT_[A-Z_]+)`").FindAllStringSubmatch(table, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	if len(names) < 20 {
		t.Fatalf("found %d EDGELIMIT_* names in the Configuration table of docs/reference.md: %v", len(names), names)
	}
	return names
}

// TestOpenChecksNames: Open, what the functions call with os.Environ, fails before it
// builds anything when a name is unknown.
func TestOpenChecksNames(t *testing.T) {
	_, _, err := config.Open(context.Background(), envOf(nil), config.Options{Environ: []string{"EDGELIMIT_FAIL_MOD=open"}})
	if err == nil || !strings.Contains(err.Error(), "EDGELIMIT_FAIL_MODE") {
		t.Fatalf("Open: %v; want the closest name, EDGELIMIT_FAIL_MODE", err)
	}
}
