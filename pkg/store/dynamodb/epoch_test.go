package dynamodb

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestEpochOfARecreatedTable: the first reads of a new tenants table, 8 at once, all
// get the one epoch that one of them wrote; it stays while the table does; the table
// deleted and created again under its name has another.
func TestEpochOfARecreatedTable(t *testing.T) {
	ts := newTestTenants(t).(testStore)
	ctx := context.Background()
	ids := make(chan string, 8)
	for range 8 {
		go func() {
			id, err := ts.Epoch(ctx)
			if err != nil {
				t.Error(err)
			}
			ids <- id
		}()
	}
	first := <-ids
	for range 7 {
		if id := <-ids; id != first || id == "" {
			t.Fatalf("concurrent first reads: %q and %q, want one epoch", first, id)
		}
	}
	if id, err := ts.Epoch(ctx); id != first || err != nil {
		t.Fatalf("read again: %q, %v; want %q", id, err, first)
	}
	if _, err := ts.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: ts.table}); err != nil {
		t.Fatal(err)
	}
	if err := CreateTable(ctx, ts.client, aws.ToString(ts.table), TenantsTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	if id, err := ts.Epoch(ctx); id == first || id == "" || err != nil {
		t.Fatalf("the table created again: %q, %v; want a new epoch, not %q", id, err, first)
	}
}
