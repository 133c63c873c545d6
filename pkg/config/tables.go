package config

import (
	"context"
	"time"

	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
)

// tableWait bounds how long CreateTables waits for a new table to become active.
const tableWait = time.Minute

// CreateTables creates the DynamoDB tables c names that do not exist, as the deployment
// template would (pkg/store/dynamodb.CreateTable), and returns the names of those it created. It is
// for `edgelimit dev` against DynamoDB Local or an account of one's own; deployed
// functions never call it. Other backends, and the tenants table when tenants come from
// a file, need nothing: it returns nil.
func (c Config) CreateTables(ctx context.Context, opts Options) ([]string, error) {
	if c.Backend != BackendDynamoDB {
		return nil, nil
	}
	client, err := c.dynamoDBClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	tables := []struct {
		name   string
		create func() error
	}{
		{c.TenantsTable, func() error {
			return dynamodb.CreateTable(ctx, client, c.TenantsTable, dynamodb.TenantsTable, tableWait)
		}},
		{c.CountersTable, func() error {
			return dynamodb.CreateTable(ctx, client, c.CountersTable, dynamodb.CountersTable, tableWait)
		}},
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
