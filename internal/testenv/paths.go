package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// ModuleRoot returns the module's root: the nearest folder above the test's holding
// go.mod (and the Makefile, template.yaml, events/...).
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
