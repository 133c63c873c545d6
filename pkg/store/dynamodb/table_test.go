package dynamodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// TestCreateTableTwice: CreateTable leaves an existing table of either kind as it is,
// and refuses an unknown kind.
func TestCreateTableTwice(t *testing.T) {
	client := newClient(testenv.DynamoDBURL(t))
	for _, kind := range []TableKind{CountersTable, TenantsTable} {
		var b [6]byte
		rand.Read(b[:])
		name := "create-twice-" + hex.EncodeToString(b[:])
		t.Cleanup(func() {
			if _, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
				t.Errorf("deleting table %s: %v", name, err)
			}
		})
		for range 2 {
			if err := CreateTable(t.Context(), client, name, kind, time.Minute); err != nil {
				t.Fatalf("kind %d: %v", kind, err)
			}
		}
	}
	if err := CreateTable(t.Context(), client, "unknown-kind", TableKind(0), time.Minute); err == nil {
		t.Fatal("table kind 0: no error")
	}
}
