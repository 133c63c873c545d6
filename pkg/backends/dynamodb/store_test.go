package dynamodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
)

// envTable passes the test table's name to child processes.
const envTable = "EDGELIMIT_TEST_COUNTERS_TABLE"

// newClient returns an SDK client for DynamoDB Local at endpoint.
func newClient(endpoint string, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, opts...)...)
}

// newTestStore creates a fresh counters table in DynamoDB Local and returns a Store on it.
func newTestStore(t testing.TB, opts ...func(*dynamodb.Options)) (*Store, *dynamodb.Client, string) {
	t.Helper()
	endpoint := testenv.DynamoDBURL(t)
	client := newClient(endpoint, opts...)
	var b [4]byte
	rand.Read(b[:])
	table := "counters-" + hex.EncodeToString(b[:])
	if err := CreateTable(context.Background(), newClient(endpoint), table); err != nil {
		t.Fatal(err)
	}
	return New(client, table, Config{}), client, table
}

func TestMain(m *testing.M) {
	storetest.MaybeChild(func() (backends.Store, error) {
		return New(newClient(os.Getenv(testenv.EnvDynamoDBURL)), os.Getenv(envTable), Config{}), nil
	})
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	store, _, _ := newTestStore(t)
	storetest.Run(t, store, storetest.Options{MaxLogLimit: MaxLogLimit})
}

func TestExactAcrossProcesses(t *testing.T) {
	store, _, table := newTestStore(t)
	t.Setenv(envTable, table)
	storetest.Exactness(t, store)
}
