package config_test

import (
	"context"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// A function's AWS configuration is its environment: the runtime's credentials
// (session token included) and region; AWS_DEFAULT_REGION stands in for AWS_REGION. A
// variable that is missing fails the cold start, named.
func TestLambdaAWSConfig(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_SESSION_TOKEN": "session", "AWS_DEFAULT_REGION": "eu-west-1"}
	cfg, err := config.LambdaAWSConfig(envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || cfg.Region != "eu-west-1" || creds.AccessKeyID != "AKIDEXAMPLE" || creds.SecretAccessKey != "secret" || creds.SessionToken != "session" {
		t.Fatalf("region %q, credentials %+v, %v", cfg.Region, creds, err)
	}
	env["AWS_REGION"] = "us-west-2"
	if cfg, _ := config.LambdaAWSConfig(envOf(env)); cfg.Region != "us-west-2" {
		t.Errorf("region %q, want AWS_REGION's", cfg.Region)
	}
	for _, name := range []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		missing := map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "r"}
		delete(missing, name)
		if _, err := config.LambdaAWSConfig(envOf(missing)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("without %s: %v, want an error naming it", name, err)
		}
	}
}
