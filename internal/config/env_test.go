package config_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/pkg/hotcounter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// built reports whether this test binary has the backend: every one unless it was built
// with internal/config's edgelimit.<backend> tags, as scripts/test.sh also runs these tests.
func built(backend string) bool { return slices.Contains(config.Backends(), backend) }

// requireBackend skips a test of a backend that this test binary was built without.
func requireBackend(t *testing.T, backend string) {
	t.Helper()
	if !built(backend) {
		t.Skipf("built without the %s backend (it has %v)", backend, config.Backends())
	}
}

func TestLoadDefaults(t *testing.T) {
	c, err := config.Load(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Backend != "memory" || c.LatencyBudget != 0 || c.ConfigTTL != 0 || !c.UpstashLocking || c.FailMode != "" {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestLoadReadsEveryVariable(t *testing.T) {
	requireBackend(t, config.BackendDynamoDB)
	c, err := config.Load(envOf(map[string]string{
		"EDGELIMIT_BACKEND": "DynamoDB", "EDGELIMIT_TENANTS_TABLE": "t", "EDGELIMIT_COUNTERS_TABLE": "c",
		"EDGELIMIT_KEY_HEADER": "x-key", "EDGELIMIT_LATENCY_BUDGET": "250ms", "EDGELIMIT_CONFIG_TTL": "0",
		"EDGELIMIT_HTTP_API_RESPONSE": "iam", "EDGELIMIT_FAIL_MODE": "open", "EDGELIMIT_ANONYMOUS_TENANT": "public",
		"EDGELIMIT_USAGE_IDENTIFIER": "api-key", "EDGELIMIT_LOG_LEVEL": "warn", "EDGELIMIT_UPSTASH_KEY_LOCKING": "false",
		"EDGELIMIT_DEFAULT_RULES": `[{"name": "burst", "algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 20}]`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Backend != "dynamodb" || c.KeyHeader != "x-key" || c.LatencyBudget != 250*time.Millisecond || c.ConfigTTL >= 0 ||
		c.HTTPAPIResponse != "iam" || c.FailMode != tenant.FailOpen || c.AnonymousTenant != "public" ||
		c.UsageIdentifier != "api-key" || c.LogLevel.String() != "WARN" || c.UpstashLocking || len(c.DefaultRules) != 1 {
		t.Fatalf("%+v", c)
	}
}

// Every bad value is refused at load, with the variable named.
func TestLoadErrorsNameTheVariable(t *testing.T) {
	cases := []map[string]string{
		{"EDGELIMIT_BACKEND": "redis"},
		{"EDGELIMIT_LATENCY_BUDGET": "100"},
		{"EDGELIMIT_CONFIG_TTL": "-1s"},
		{"EDGELIMIT_HTTP_API_RESPONSE": "fancy"},
		{"EDGELIMIT_FAIL_MODE": "maybe"},
		{"EDGELIMIT_ANONYMOUS_TENANT": "Not An Id"},
		{"EDGELIMIT_USAGE_IDENTIFIER": "key-id"},
		{"EDGELIMIT_LOG_LEVEL": "loud"},
		{"EDGELIMIT_UPSTASH_KEY_LOCKING": "sometimes"},
		{"EDGELIMIT_DEFAULT_RULES": `[{"algorithm": "token_bucket", "limit": 0, "period": "1s"}]`},
		{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_COUNTERS_TABLE": "c"},
		{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_TENANTS_TABLE": "t"},
		{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_TOKEN": "x"},
		{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": "https://x.upstash.io"},
	}
	for _, env := range cases {
		_, err := config.Load(envOf(env))
		if err == nil {
			t.Errorf("%v: no error", env)
			continue
		}
		named := false
		for _, name := range []string{"EDGELIMIT_", "UPSTASH_"} {
			named = named || strings.Contains(err.Error(), name)
		}
		if !named {
			t.Errorf("%v: %v does not name the variable", env, err)
		}
	}
}

func TestBuildMemoryWithTenantsFile(t *testing.T) {
	c, err := config.Load(envOf(map[string]string{"EDGELIMIT_TENANTS_FILE": filepath.Join("..", "..", "events", "authorizer", "tenants.json")}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Build(context.Background(), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Tenants.Get(context.Background(), "demo"); err != nil {
		t.Fatalf("demo: %v", err)
	}
	c.TenantsFile = "no-such-file.json"
	if _, err := c.Build(context.Background(), config.Options{}); err == nil || !strings.Contains(err.Error(), "EDGELIMIT_TENANTS_FILE") {
		t.Fatalf("missing file: %v", err)
	}
}

// Without a token, the Upstash token is read from Secrets Manager: one signed
// GetSecretValue request naming the secret.
func TestUpstashTokenFromSecretsManager(t *testing.T) {
	requireBackend(t, config.BackendUpstash)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	var gotTarget, gotAuth, gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotTarget, gotAuth, gotBody = r.Header.Get("X-Amz-Target"), r.Header.Get("Authorization"), string(b)
		if !strings.Contains(gotBody, "arn:aws:secretsmanager:eu-west-1:123456789012:secret:upstash") {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"__type": "ResourceNotFoundException", "message": "no such secret"}`)
			return
		}
		_, _ = io.WriteString(w, `{"ARN": "x", "Name": "upstash", "SecretString": "tok3n\n"}`)
	}))
	defer srv.Close()
	env := map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": "http://127.0.0.1:1",
		"UPSTASH_REDIS_REST_TOKEN_SECRET_ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:upstash",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER":    srv.URL}
	c, err := config.Load(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Build(context.Background(), config.Options{}); err != nil {
		t.Fatal(err)
	}
	if gotTarget != "secretsmanager.GetSecretValue" || !strings.Contains(gotAuth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") ||
		!strings.Contains(gotAuth, "/eu-west-1/secretsmanager/aws4_request") {
		t.Fatalf("request: target %q auth %q", gotTarget, gotAuth)
	}
	c.UpstashSecretARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:other"
	if _, err := c.Build(context.Background(), config.Options{}); err == nil || !strings.Contains(err.Error(), "ResourceNotFoundException") {
		t.Fatalf("unknown secret: %v", err)
	}
}

// TestHotCounters: the DynamoDB counter store is put behind pkg/hotcounter unless
// EDGELIMIT_HOT_COUNTERS=off; Upstash's only when it is on; its knobs are checked.
func TestHotCounters(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "edgelimittest") // the functions' AWS configuration is their environment
	t.Setenv("AWS_SECRET_ACCESS_KEY", "edgelimittest")
	t.Setenv("AWS_REGION", "eu-west-1")
	dynamo := map[string]string{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_TENANTS_TABLE": "t", "EDGELIMIT_COUNTERS_TABLE": "c"}
	upstashEnv := map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": "http://127.0.0.1:1", "UPSTASH_REDIS_REST_TOKEN": "x"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		hot  bool
	}{
		{"dynamodb by default", dynamo, true},
		{"dynamodb off", with(dynamo, "EDGELIMIT_HOT_COUNTERS", "off"), false},
		{"dynamodb with knobs", with(dynamo, "EDGELIMIT_HOT_THRESHOLD", "200", "EDGELIMIT_HOT_LEASE_TIME", "500ms"), true},
		{"upstash by default", upstashEnv, false},
		{"upstash on", with(upstashEnv, "EDGELIMIT_HOT_COUNTERS", "ON"), true},
	} {
		if !built(tc.env["EDGELIMIT_BACKEND"]) {
			continue
		}
		c, err := config.Load(envOf(tc.env))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		st, err := c.Build(context.Background(), config.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, hot := st.Counters.(*hotcounter.Store); hot != tc.hot || c.Hot() != tc.hot {
			t.Errorf("%s: counters %T, want hot counters %v", tc.name, st.Counters, tc.hot)
		}
	}
	if !built(config.BackendDynamoDB) {
		return
	}
	for _, bad := range []map[string]string{
		with(dynamo, "EDGELIMIT_HOT_COUNTERS", "maybe"),
		with(dynamo, "EDGELIMIT_HOT_THRESHOLD", "0"),
		with(dynamo, "EDGELIMIT_HOT_THRESHOLD", "fast"),
		with(dynamo, "EDGELIMIT_HOT_LEASE_TIME", "1m"),
		{"EDGELIMIT_HOT_COUNTERS": "on"}, // the memory backend
	} {
		if _, err := config.Load(envOf(bad)); err == nil || !strings.Contains(err.Error(), "EDGELIMIT_HOT_") {
			t.Errorf("%v: %v, want an error naming the variable", bad, err)
		}
	}
}

// EDGELIMIT_UPSTASH_PIPELINING is off unless set; a value that is not a boolean fails,
// named.
func TestUpstashPipelining(t *testing.T) {
	for value, want := range map[string]bool{"": false, "true": true, "false": false, "1": true} {
		c, err := config.Load(envOf(map[string]string{"EDGELIMIT_UPSTASH_PIPELINING": value}))
		if err != nil || c.UpstashPipelining != want {
			t.Errorf("%q: %v, %v; want %v", value, c.UpstashPipelining, err, want)
		}
	}
	if _, err := config.Load(envOf(map[string]string{"EDGELIMIT_UPSTASH_PIPELINING": "often"})); err == nil || !strings.Contains(err.Error(), "EDGELIMIT_UPSTASH_PIPELINING") {
		t.Errorf("a bad value: %v", err)
	}
}
