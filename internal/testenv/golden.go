package testenv

import (
	"os"
	"testing"
)

// Golden compares got with the committed file at path, which update (a test's -update
// flag) first rewrites; a difference fails the test, naming the command that redraws
// the file.
func Golden(tb testing.TB, path string, got []byte, update bool, redraw string) {
	tb.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if string(want) != string(got) {
		tb.Fatalf("%s is out of date: %s", path, redraw)
	}
}
