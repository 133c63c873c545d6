package apply_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// seed gives the server what the file of testdata/limits.yaml changes: plan pro at
// an older limit, acme on its own rules with a route and three keys, globex as the
// file has it, and a tenant "legacy" that the file does not name.
func seed(t *testing.T, s *server) {
	t.Helper()
	if code := s.call(t, http.MethodPut, "/plans/pro", "", `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 50000, "period": "day"},
		{"name": "burst", "algorithm": "token_bucket", "limit": 50, "period": "1s", "burst": 100}],
		"routes": [{"method": "POST", "resource": "/orders", "rules": [{"name": "orders", "algorithm": "sliding_window", "limit": 20, "period": "1m"}]}]}`); code != http.StatusCreated {
		t.Fatalf("PUT /plans/pro: %d", code)
	}
	s.putTenant(t, `{"id": "acme", "timezone": "UTC",
		"rules": [{"name": "minute", "algorithm": "sliding_window", "limit": 100, "period": "1m"}],
		"routes": [{"method": "GET", "resource": "/reports", "rules": [{"name": "reports", "algorithm": "fixed_window", "limit": 5, "period": "1m", "scope": "key"}]}],
		"metadata": {"owner": "sales"}}`)
	s.putTenant(t, `{"id": "globex", "fail_mode": "open", "rules": [{"name": "minute", "algorithm": "sliding_window", "limit": 60, "period": "1m"}]}`)
	s.putTenant(t, `{"id": "legacy", "rules": [{"algorithm": "fixed_window", "limit": 10, "period": "1s"}]}`)
	for _, k := range []string{"acmekey1", "acmekey2", "acmekey3"} {
		s.putKey(t, "acme", k)
	}
	s.putKey(t, "globex", "globexk1")
	s.putKey(t, "legacy", "legacyk1")
}

func readFile(t *testing.T, name string) *apply.State {
	t.Helper()
	return parse(t, name, fileText(t, name))
}

func fileText(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func parse(t *testing.T, name, text string) *apply.State {
	t.Helper()
	want, err := apply.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestDryRunGolden: the dry run of testdata/limits.yaml against the seeded server, with
// --prune, prints testdata/dryrun.golden and writes nothing.
func TestDryRunGolden(t *testing.T) {
	s := newServer(t)
	seed(t, s)
	var out bytes.Buffer
	if err := apply.Run(context.Background(), s.client(t), readFile(t, "limits.yaml"), true, true, &out); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "dryrun.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("dry run:\n%s\nwant (%s):\n%s", out.String(), golden, want)
	}
	if n := s.writes.Load(); n != 0 {
		t.Errorf("the dry run sent %d writes, want 0", n)
	}
}

// limitsFile is testdata/limits.yaml, parsed.
func limitsFile(t *testing.T) *apply.State {
	t.Helper()
	return parse(t, "limits.yaml", fileText(t, "limits.yaml"))
}

// TestSecondApplyWritesNothing: an apply writes each change once; a second apply of
// the same file sends no write at all (counted on the server), and says so.
func TestSecondApplyWritesNothing(t *testing.T) {
	s := newServer(t)
	seed(t, s)
	want := limitsFile(t)
	var out bytes.Buffer
	if err := apply.Run(context.Background(), s.client(t), want, false, false, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// free created, pro replaced, acme replaced, initech created, acmekey2 revoked.
	if n := s.writes.Load(); n != 5 {
		t.Errorf("the first apply sent %d writes, want 5:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "applied: 2 added, 3 changed, 0 deleted") {
		t.Errorf("output:\n%s", out.String())
	}
	s.writes.Store(0)
	out.Reset()
	if err := apply.Run(context.Background(), s.client(t), want, false, false, &out); err != nil {
		t.Fatal(err)
	}
	if n := s.writes.Load(); n != 0 || out.String() != "0 to add, 0 to change, 0 to delete\n" {
		t.Errorf("the second apply sent %d writes, want 0; output:\n%s", n, out.String())
	}
	if code := s.call(t, http.MethodGet, "/tenants/legacy", "", ""); code != http.StatusOK {
		t.Errorf("tenant legacy, not in the file, without --prune: GET %d, want 200", code)
	}
}

// TestConflictIsReported: another client's write between apply's read and its
// conditional write (injected by the server, before it serves apply's write) is
// reported as a conflict naming the object, and not overwritten: for a replace of a
// tenant and of a plan, and for the delete of a tenant by prune.
func TestConflictIsReported(t *testing.T) {
	tests := []struct {
		name, write, path, object  string
		injectMethod, etag, inject string
		kept                       string
		prune                      bool
	}{
		{"tenant", http.MethodPut, "/tenants/acme", "tenant acme", http.MethodPatch, `"1"`, `{"timezone": "Europe/Paris"}`, `"timezone":"Europe/Paris"`, false},
		{"plan", http.MethodPut, "/plans/pro", "plan pro", http.MethodPut, `"1"`, `{"rules": [{"name": "other", "algorithm": "fixed_window", "limit": 7, "period": "1s"}]}`, `"name":"other"`, false},
		{"prune", http.MethodDelete, "/tenants/legacy", "tenant legacy", http.MethodPatch, `"1"`, `{"metadata": {"keep": "me"}}`, `"keep":"me"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			seed(t, s)
			s.beforeWrite = func(r *http.Request) {
				if r.Method == tc.write && r.URL.Path == tc.path {
					s.beforeWrite = nil
					if code := s.call(t, tc.injectMethod, tc.path, tc.etag, tc.inject); code != http.StatusOK {
						t.Errorf("the injected write: %d", code)
					}
				}
			}
			var out bytes.Buffer
			err := apply.Run(context.Background(), s.client(t), limitsFile(t), tc.prune, false, &out)
			if !errors.Is(err, apply.ErrConflict) || !strings.Contains(err.Error(), tc.object+": ") || !strings.Contains(err.Error(), "run edgelimit apply again") {
				t.Fatalf("error %v; want ErrConflict naming %s and saying to run again", err, tc.object)
			}
			if body := s.get(t, tc.path); !strings.Contains(body, tc.kept) {
				t.Errorf("%s after the conflict: %s; want the other client's write (%s) kept", tc.path, body, tc.kept)
			}
		})
	}
}
