package config

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// awsConfig loads the SDK's configuration (credentials, region, CA bundle) from the
// environment; an Options.HTTPClient is set on each service client instead, so that
// it can be combined with AWS_CA_BUNDLE.
func (c Config) awsConfig(ctx context.Context) (aws.Config, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("config: AWS configuration: %w", err)
	}
	return cfg, nil
}

// dynamoDBClient makes the DynamoDB client of c: the SDK's configuration from the
// environment, with Options.HTTPClient and c.DynamoDBEndpoint when they are set.
func (c Config) dynamoDBClient(ctx context.Context, opts Options) (*dynamodb.Client, error) {
	awsCfg, err := c.awsConfig(ctx)
	if err != nil {
		return nil, err
	}
	client := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		if c.DynamoDBEndpoint != "" { // the SDK reads it too; this honours Load's getenv
			o.BaseEndpoint = aws.String(c.DynamoDBEndpoint)
		}
		// DynamoDB Local sends no X-Amz-Crc32 header on error replies, which the SDK
		// then checks against 0, logging a WARN for each (a denial is one).
		o.DisableValidateResponseChecksum = isLoopbackURL(c.DynamoDBEndpoint)
	})
	return client, nil
}

// isLoopbackURL reports whether raw is a URL of this machine (DynamoDB Local).
func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()
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
