package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// startDevInProcess serves edgelimit dev's handler (with its demo tenant and key) on a
// loopback port, with env set in the process's environment (the AWS SDK reads it too),
// and returns its base URL.
func startDevInProcess(t *testing.T, env map[string]string) string {
	t.Helper()
	t.Setenv("EDGELIMIT_TENANTS_FILE", "")
	t.Setenv("EDGELIMIT_BACKEND", "memory")
	for k, v := range env {
		t.Setenv(k, v)
	}
	o := devOptions{listen: "127.0.0.1:0", getenv: os.Getenv}
	srv, ln, _, err := startDev(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// devBackends are the backends TestApplyAndExportOnDev runs edgelimit dev on: the
// persistent ones skip without their services (and fail under CI).
var devBackends = []struct {
	name string
	env  func(t *testing.T, suffix string) map[string]string
}{
	{"memory", func(*testing.T, string) map[string]string { return nil }},
	{"dynamodb", func(t *testing.T, suffix string) map[string]string {
		url := testenv.DynamoDBURL(t)
		tables := []string{"apply-tenants-" + suffix, "apply-counters-" + suffix}
		t.Cleanup(func() {
			client := testenv.DynamoDBLocal(url, "edgelimittest")
			for _, table := range tables {
				if _, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &table}); err != nil {
					t.Errorf("deleting table %s: %v", table, err)
				}
			}
		})
		return map[string]string{"EDGELIMIT_BACKEND": "dynamodb", "AWS_ENDPOINT_URL_DYNAMODB": url, "AWS_ACCESS_KEY_ID": "edgelimittest",
			"AWS_SECRET_ACCESS_KEY": "edgelimittest", "AWS_SESSION_TOKEN": "", "AWS_REGION": "us-east-1",
			"EDGELIMIT_TENANTS_TABLE": tables[0], "EDGELIMIT_COUNTERS_TABLE": tables[1]}
	}},
	{"upstash", func(t *testing.T, suffix string) map[string]string {
		url, token := testenv.UpstashURL(t)
		return map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": url, "UPSTASH_REDIS_REST_TOKEN": token,
			"EDGELIMIT_UPSTASH_PREFIX": "el:apply" + suffix + ":"}
	}},
	{"redis", func(t *testing.T, suffix string) map[string]string {
		return map[string]string{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": testenv.RedisAddr(t), "EDGELIMIT_REDIS_PREFIX": "el:apply" + suffix + ":"}
	}},
}

// TestApplyAndExportOnDev: against edgelimit dev's admin API on each backend, a dry
// run prints the diff and writes nothing, apply writes it, a second apply writes
// nothing, and the export (JSON to a file, then YAML to stdout) applies with --prune
// as no change.
func TestApplyAndExportOnDev(t *testing.T) {
	for _, b := range devBackends {
		t.Run(b.name, func(t *testing.T) { applyAndExport(t, startDevInProcess(t, b.env(t, randomSuffix(t)))) })
	}
}

func applyAndExport(t *testing.T, base string) {
	dir := t.TempDir()
	file := filepath.Join(dir, "limits.yaml")
	limits := "tenants:\n  - id: acme\n    timezone: Europe/Paris\n    rules: [{name: minute, algorithm: sliding_window, limit: 100, period: 1m}, {name: daily, algorithm: fixed_window, limit: 5000, period: day}]\n    routes: [{method: POST, resource: /orders, rules: [{algorithm: token_bucket, limit: 5, period: 1s, burst: 10, scope: key}]}]\n    metadata: {owner: billing}\n"
	if err := os.WriteFile(file, []byte(limits), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"apply", "-f", file, "--admin", base, "--dry-run"}, "+ tenant acme\n1 to add, 0 to change, 0 to delete (dry run: nothing written)\n"},
		{[]string{"apply", "-f", file, "--admin", base + "/admin/"}, "+ tenant acme\n1 to add, 0 to change, 0 to delete\napplied: 1 added, 0 changed, 0 deleted\n"},
		{[]string{"apply", "-f", file, "--admin", base}, "0 to add, 0 to change, 0 to delete\n"},
		{[]string{"export", "--admin", base, "-o", filepath.Join(dir, "all.json")}, ""},
		{[]string{"apply", "-f", filepath.Join(dir, "all.json"), "--admin", base, "--prune"}, "0 to add, 0 to change, 0 to delete\n"},
	}
	for _, s := range steps {
		code, stdout, stderr := runCapture(t, "", s.args...)
		if code != 0 || stdout != s.want {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want 0 and %q", strings.Join(s.args, " "), code, stdout, stderr, s.want)
		}
	}
	code, yaml, stderr := runCapture(t, "", "export", "--admin", base)
	if code != 0 || !strings.Contains(yaml, "  - id: acme\n") || !strings.Contains(yaml, "  - id: demo\n") {
		t.Fatalf("export: exit %d, stderr %q, stdout:\n%s", code, stderr, yaml)
	}
	code, stdout, stderr := runCapture(t, yaml, "apply", "-f", "-", "--admin", base, "--prune")
	if code != 0 || stdout != "0 to add, 0 to change, 0 to delete\n" {
		t.Errorf("apply of the YAML export from stdin: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	resp, err := http.Get(base + "/admin/tenants/acme")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /admin/tenants/acme: %d", resp.StatusCode)
	}
}

// TestApplyExitCodes: a file that does not validate exits 2 and a server that cannot
// honour it (or cannot be reached) exits 1, each naming the problem, with nothing on
// stdout.
func TestApplyExitCodes(t *testing.T) {
	base := startDevInProcess(t, nil)
	tests := []struct {
		file, admin string
		code        int
		want        string
	}{
		{"tenants: [{id: acme}]", base, 2, "edgelimit apply: -: tenants[0] (acme): rules: a tenant needs rules unless it names a plan"},
		{"keys: {nokey123: {tenant: demo}}", base, 1, "edgelimit apply: key nokey123 of tenant demo does not exist"},
		{"tenants: []", "http://127.0.0.1:1", 1, "edgelimit apply: GET /plans"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runCapture(t, tc.file, "apply", "-f", "-", "--admin", tc.admin)
		if code != tc.code || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.file, code, stdout, stderr, tc.code, tc.want)
		}
	}
}
