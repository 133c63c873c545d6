package config_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// A tenants file whose rule the counter store cannot honour (a sliding_log of 5000 on
// DynamoDB, whose log lives in one item) fails Build, naming the file, the tenant and
// the field, instead of loading and then failing every decision of that tenant. The
// memory backend honours it. Build makes no request to DynamoDB.
func TestTenantsFileCheckedAgainstTheBackend(t *testing.T) {
	requireBackend(t, config.BackendDynamoDB)
	path := filepath.Join(t.TempDir(), "tenants.json")
	file := `{"tenants": [{"id": "ok", "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1s"}]},
		{"id": "big", "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1s"}],
		 "routes": [{"method": "GET", "resource": "/log", "rules": [{"algorithm": "sliding_log", "limit": 5000, "period": "1m"}]}]}]}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "edgelimittest")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "edgelimittest")
	dynamo := config.Config{Backend: config.BackendDynamoDB, CountersTable: "counters", TenantsFile: path}
	_, err := dynamo.Build(context.Background(), config.Options{})
	var fe *limiter.FieldError
	var fileErr *store.FileError
	if !errors.As(err, &fileErr) || !errors.As(err, &fe) || fe.Field != "routes[0].rules[0].limit" ||
		!strings.Contains(err.Error(), `tenants[1] (tenant "big")`) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Build on DynamoDB: %v, want the file, tenants[1] and routes[0].rules[0].limit named", err)
	}
	memory := config.Config{Backend: config.BackendMemory, TenantsFile: path}
	st, err := memory.Build(context.Background(), config.Options{})
	if err != nil {
		t.Fatalf("Build on memory: %v", err)
	}
	if _, err := st.Tenants.Get(context.Background(), "big"); err != nil {
		t.Fatalf("tenant big on memory: %v", err)
	}
}
