package config

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	})
	return client, nil
}
