package admin_test

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// deleteTable deletes table, when a test is done with it.
func deleteTable(ctx context.Context, client *dynamodb.Client, table string) error {
	_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	return err
}
