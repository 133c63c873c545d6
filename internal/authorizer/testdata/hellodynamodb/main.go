// Command hellodynamodb is the hello-world authorizer (package
// internal/authorizer/internal/hello) that makes a DynamoDB client at init, from the AWS
// SDK's default configuration (config.LoadDefaultConfig): what a user would write to
// decide on DynamoDB. It is the peer of the DynamoDB build's runtime init in the
// cold-start comparison in functions/authorizer, built the same way; the hello-world
// handler allows every request without calling the client.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/authorizer/internal/hello"
)

// client is what a user's handler would decide with.
var client *dynamodb.Client

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "hellodynamodb:", err)
		os.Exit(1)
	}
	client = dynamodb.NewFromConfig(cfg)
	lambda.Start(hello.Handle)
}
