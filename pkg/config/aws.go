package config

import (
	"context"
	"fmt"
	"net"
	"net/url"

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

// dynamoClient is the DynamoDB client of c: the SDK's configuration, with opts'
// HTTPClient and c's endpoint.
func (c Config) dynamoClient(ctx context.Context, opts Options) (*dynamodb.Client, error) {
	awsCfg, err := c.awsConfig(ctx)
	if err != nil {
		return nil, err
	}
	return dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		if c.DynamoDBEndpoint != "" { // the SDK reads it too; this honours Load's getenv
			o.BaseEndpoint = aws.String(c.DynamoDBEndpoint)
		}
		// DynamoDB Local sends no X-Amz-Crc32 header on error replies, which the SDK
		// then checks against 0, logging a WARN for each (a denial is one).
		o.DisableValidateResponseChecksum = isLoopbackURL(c.DynamoDBEndpoint)
	}), nil
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
