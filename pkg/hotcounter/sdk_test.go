package hotcounter_test

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ddbClient is an SDK client for endpoint, through transport (nil: the default).
func ddbClient(endpoint string, transport http.RoundTripper, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(endpoint),
		HTTPClient:   &http.Client{Transport: transport},
	}, opts...)
}

// noRetries turns the SDK's retries off for every call (the dynamodb store turns them
// off for its decisions only; Peek and Reset would retry a throttle with real sleeps).
func noRetries(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
