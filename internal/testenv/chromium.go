package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// EnvChromium names the Chromium binary the browser tests drive (scripts/services.sh
// installs Debian's chromium and exports it).
const EnvChromium = "EDGELIMIT_TEST_CHROMIUM"

// Chromium returns the path of the Chromium binary: EDGELIMIT_TEST_CHROMIUM, else
// chromium on PATH. Without either the test is skipped, or fails when CI is set.
func Chromium(tb testing.TB) string {
	tb.Helper()
	if v := os.Getenv(EnvChromium); v != "" {
		return v
	}
	if path, err := exec.LookPath("chromium"); err == nil {
		return path
	}
	return Require(tb, EnvChromium)
}
