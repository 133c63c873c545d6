package dynamodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
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

// newTestStore creates a fresh counters table in DynamoDB Local and returns a Counters on it.
func newTestStore(t testing.TB, opts ...func(*dynamodb.Options)) (*Counters, *dynamodb.Client, string) {
	t.Helper()
	endpoint := testenv.DynamoDBURL(t)
	client := newClient(endpoint, opts...)
	var b [4]byte
	rand.Read(b[:])
	table := "counters-" + hex.EncodeToString(b[:])
	if err := CreateTable(context.Background(), newClient(endpoint), table, CountersTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	return NewCounters(client, table, CountersConfig{}), client, table
}

func TestMain(m *testing.M) {
	maybeClocksChild()
	childStore := func() (store.Counters, error) {
		return NewCounters(newClient(os.Getenv(testenv.EnvDynamoDBURL)), os.Getenv(envTable), CountersConfig{}), nil
	}
	storetest.MaybeChild(childStore)
	storetest.MaybeInFlightChild(childStore, errorClass)
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	st, _, _ := newTestStore(t)
	storetest.RunCounters(t, st, storetest.CountersOptions{MaxLogLimit: MaxLogLimit})
}

func TestExactAcrossProcesses(t *testing.T) {
	st, _, table := newTestStore(t)
	t.Setenv(envTable, table)
	storetest.Exactness(t, st)
}

// TestSettle replays the reserve/settle traces (every algorithm, concurrency among
// them, over three counters) on DynamoDB Local against the limiter.
func TestSettle(t *testing.T) {
	st, _, _ := newTestStore(t)
	storetest.RunSettle(t, st)
}
