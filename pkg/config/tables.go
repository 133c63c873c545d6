package config

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	bdynamodb "github.com/edgelimit/edgelimit/pkg/backends/dynamodb"
	tdynamodb "github.com/edgelimit/edgelimit/pkg/tenantstore/dynamodb"
)

// tableWait bounds how long CreateTables waits for a new table to become active.
const tableWait = time.Minute

// CreateTables creates the DynamoDB tables c names that do not exist, as the deployment
// template would (pkg/tenantstore/dynamodb.CreateTable and
// pkg/backends/dynamodb.CreateTable), and returns the names of those it created. It is
// for `edgelimit dev` against DynamoDB Local or an account of one's own; deployed
// functions never call it. Other backends, and the tenants table when tenants come from
// a file, need nothing: it returns nil.
func (c Config) CreateTables(ctx context.Context, opts Options) ([]string, error) {
	if c.Backend != BackendDynamoDB {
		return nil, nil
	}
	client, err := c.dynamoClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	tables := []struct {
		name   string
		create func() error
	}{
		{c.TenantsTable, func() error { return tdynamodb.CreateTable(ctx, client, c.TenantsTable, tableWait) }},
		{c.CountersTable, func() error { return bdynamodb.CreateTable(ctx, client, c.CountersTable) }},
	}
	if c.TenantsFile != "" {
		tables = tables[1:]
	}
	var created []string
	for _, t := range tables {
		exists, err := tableExists(ctx, client, t.name)
		if err != nil {
			return created, err
		}
		if exists {
			continue
		}
		if err := t.create(); err != nil {
			return created, err
		}
		created = append(created, t.name)
	}
	return created, nil
}

// tableExists asks DynamoDB whether the table exists (in any state).
func tableExists(ctx context.Context, client *dynamodb.Client, table string) (bool, error) {
	_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("config: DynamoDB table %s: %w", table, err)
	}
	return true, nil
}
