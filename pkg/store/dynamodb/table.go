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

// CreateTable creates the table name of kind as the template does (partition key "pk",
// on-demand billing; TTL on expires_at for counters) and waits up to wait for it to
// become active. It is for tests and for `edgelimit dev` against DynamoDB Local;
// production tables come from template.yaml (with point-in-time recovery on the
// tenants table). An existing table is left as it is.
func CreateTable(ctx context.Context, api TableAPI, name string, kind TableKind, wait time.Duration) error {
	if kind != CountersTable && kind != TenantsTable {
		return fmt.Errorf("dynamodb: create table %s: unknown table kind %d", name, kind)
	}
	_, err := api.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(attrKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(attrKey), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	existed := errors.As(err, new(*types.ResourceInUseException))
	if err != nil && !existed {
		return fmt.Errorf("dynamodb: create table %s: %w", name, err)
	}
	waiter := dynamodb.NewTableExistsWaiter(api, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 50 * time.Millisecond })
	if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, wait); err != nil {
		return fmt.Errorf("dynamodb: table %s did not become active: %w", name, err)
	}
	if kind != CountersTable || existed {
		return nil
	}
	_, err = api.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attrExpires), Enabled: aws.Bool(true)},
	})
	if err != nil && !errors.As(err, new(*types.ResourceInUseException)) {
		return fmt.Errorf("dynamodb: enable TTL on %s: %w", name, err)
	}
	return nil
}
