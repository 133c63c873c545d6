package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableKind says which of the two tables CreateTable makes.
type TableKind int

const (
	// CountersTable is the table of a Counters: partition key "pk", on-demand
	// capacity, TTL on expires_at.
	CountersTable TableKind = iota + 1
	// TenantsTable is the table of a Tenants: partition key "pk", on-demand billing.
	TenantsTable
)

// TableAPI is the part of *dynamodb.Client that CreateTable uses.
type TableAPI interface {
	CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// CreateTable creates the table name of kind as the template does and waits up to wait
// for it to become active. It is for tests and for `edgelimit dev` against DynamoDB
// Local; production tables come from template.yaml (with point-in-time recovery on the
// tenants table). An existing counters table is left as it is; an existing tenants
// table is an error.
func CreateTable(ctx context.Context, api TableAPI, name string, kind TableKind, wait time.Duration) error {
	switch kind {
	case CountersTable:
		return createCountersTable(ctx, api, name, wait)
	case TenantsTable:
		return createTenantsTable(ctx, api, name, wait)
	default:
		return fmt.Errorf("dynamodb: create table %s: unknown table kind %d", name, kind)
	}
}

func createCountersTable(ctx context.Context, client TableAPI, table string, wait time.Duration) error {
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(attrKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(attrKey), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamodb: create table %s: %w", table, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 50 * time.Millisecond })
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, wait); err != nil {
		return fmt.Errorf("dynamodb: table %s did not become active: %w", table, err)
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attrExpires), Enabled: aws.Bool(true)},
	})
	if err != nil && !errors.As(err, new(*types.ResourceInUseException)) {
		return fmt.Errorf("dynamodb: enable TTL on %s: %w", table, err)
	}
	return nil
}

func createTenantsTable(ctx context.Context, db TableAPI, table string, wait time.Duration) error {
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return fmt.Errorf("tenantstore/dynamodb: create table %s: %w", table, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
	})
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, wait); err != nil {
		return fmt.Errorf("tenantstore/dynamodb: table %s did not become active: %w", table, err)
	}
	return nil
}
