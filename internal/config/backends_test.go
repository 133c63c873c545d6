package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// A binary built with some of the edgelimit.<backend> tags has those backends and memory;
// Load refuses each other backend, naming the variable and what the binary has, and
// builds nothing. Untagged (make test's main run), it has every backend; scripts/test.sh
// runs this package once more with each tag alone.
func TestBackendsOfThisBuild(t *testing.T) {
	all := []string{config.BackendMemory, config.BackendDynamoDB, config.BackendUpstash, config.BackendRedis}
	has := config.Backends()
	if has[0] != config.BackendMemory || len(has) < 2 {
		t.Fatalf("Backends() = %v, want memory first and at least one store", has)
	}
	for _, b := range all {
		_, err := config.Load(envOf(map[string]string{"EDGELIMIT_BACKEND": b}))
		refused := err != nil && strings.Contains(err.Error(), "this binary was built without that backend (it has "+strings.Join(has, ", ")+")")
		if slices.Contains(has, b) == refused {
			t.Errorf("EDGELIMIT_BACKEND=%s with backends %v: %v", b, has, err)
		}
		if refused && !strings.Contains(err.Error(), "EDGELIMIT_BACKEND") {
			t.Errorf("EDGELIMIT_BACKEND=%s: %v, want the variable named", b, err)
		}
	}
}
