package dynamodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// newTenantsClient returns a client for DynamoDB Local, as `make test` starts it.
func newTenantsClient(t *testing.T) *dynamodb.Client {
	t.Helper()
	url := testenv.DynamoDBURL(t)
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		// DynamoDB Local takes any signature, but only letters and digits as a key id.
		Credentials: credentials.NewStaticCredentialsProvider("edgelimittest", "edgelimittest", ""),
	})
}

type testStore struct {
	*Tenants
	client *dynamodb.Client
}

// newTestTenants returns a Tenants over a new table of its own, deleted after the test.
func newTestTenants(t *testing.T) store.Tenants {
	t.Helper()
	client := newTenantsClient(t)
	var b [6]byte
	rand.Read(b[:])
	table := "tenants-test-" + hex.EncodeToString(b[:])
	if err := CreateTable(t.Context(), client, table, TenantsTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Errorf("deleting table %s: %v", table, err)
		}
	})
	return testStore{NewTenants(client, table), client}
}

func TestTenantsConformance(t *testing.T) {
	storetest.RunTenants(t, storetest.TenantsConfig{New: newTestTenants, Dump: dump})
}

// dump scans the whole table and renders every attribute of every item.
func dump(t *testing.T, s store.Tenants) []string {
	ts := s.(testStore)
	var out []string
	var start map[string]types.AttributeValue
	for range 1000 {
		page, err := ts.client.Scan(t.Context(), &dynamodb.ScanInput{TableName: ts.table, ExclusiveStartKey: start, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Items {
			for name, v := range item {
				out = append(out, name, render(v))
			}
		}
		if start = page.LastEvaluatedKey; start == nil {
			return out
		}
	}
	t.Fatal("the scan never ended")
	return nil
}

func render(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberM:
		s := "{"
		for k, e := range v.Value {
			s += k + ": " + render(e) + ", "
		}
		return s + "}"
	case *types.AttributeValueMemberL:
		s := "["
		for _, e := range v.Value {
			s += render(e) + ", "
		}
		return s + "]"
	}
	return fmt.Sprintf("%#v", v)
}
