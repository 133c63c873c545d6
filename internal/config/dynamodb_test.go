package config_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/testenv"
)

// TestCreateTables: on DynamoDB Local with neither table, CreateTables creates both
// (the counters one with TTL on expires_at), and a second call creates nothing.
func TestCreateTables(t *testing.T) {
	requireBackend(t, config.BackendDynamoDB)
	endpoint := testenv.DynamoDBURL(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "edgelimittest")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "edgelimittest")
	t.Setenv("AWS_REGION", "us-east-1")
	var b [4]byte
	rand.Read(b[:])
	tenants, counters := "ct-tenants-"+hex.EncodeToString(b[:]), "ct-counters-"+hex.EncodeToString(b[:])
	env := map[string]string{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_TENANTS_TABLE": tenants,
		"EDGELIMIT_COUNTERS_TABLE": counters, "AWS_ENDPOINT_URL_DYNAMODB": endpoint}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	created, err := cfg.CreateTables(ctx, config.Options{})
	if err != nil || !slices.Equal(created, []string{tenants, counters}) {
		t.Fatalf("CreateTables: %v, %v; want both tables", created, err)
	}
	if again, err := cfg.CreateTables(ctx, config.Options{}); err != nil || len(again) != 0 {
		t.Fatalf("CreateTables again: %v, %v; want nothing created", again, err)
	}
	client := localClient(t, endpoint)
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(counters)})
	if err != nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "expires_at" {
		t.Errorf("TTL of %s: %+v, %v", counters, ttl, err)
	}
	for _, table := range []string{tenants, counters} {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil || len(out.Table.KeySchema) != 1 || aws.ToString(out.Table.KeySchema[0].AttributeName) != "pk" {
			t.Errorf("%s: %+v, %v; want partition key pk", table, out, err)
		}
	}
	// With tenants from a file, only the counters table is needed.
	env["EDGELIMIT_TENANTS_FILE"], env["EDGELIMIT_COUNTERS_TABLE"] = "../../examples/tenants.json", counters+"-2"
	if cfg, err = config.Load(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if created, err := cfg.CreateTables(ctx, config.Options{}); err != nil || !slices.Equal(created, []string{counters + "-2"}) {
		t.Errorf("with a tenants file: %v, %v; want the counters table only", created, err)
	}
}

// The memory backend needs no table.
func TestCreateTablesMemory(t *testing.T) {
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if created, err := cfg.CreateTables(context.Background(), config.Options{}); err != nil || created != nil {
		t.Errorf("memory: %v, %v", created, err)
	}
}

func localClient(t *testing.T, endpoint string) *dynamodb.Client {
	t.Helper()
	cfg, err := awsconfig.LoadDefaultConfig(context.Background(), awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("edgelimittest", "edgelimittest", "")))
	if err != nil {
		t.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
}
