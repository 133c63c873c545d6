// Package awsdefault loads the AWS SDK's default configuration chain, for the programs
// that do not run in Lambda: `edgelimit dev` and servers that use the middleware. Give
// Load as config.Options.AWSConfig. The Lambda functions do without it
// (config.LambdaAWSConfig): the chain's loaders of shared files, SSO, STS, instance
// metadata and credential processes are megabytes of a bootstrap that a function
// never reaches, since the runtime sets its credentials and region in the environment.
package awsdefault

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
)

// Load returns config.LoadDefaultConfig's configuration: credentials, region and CA
// bundle from the environment, the shared config and credentials files, SSO, web
// identity, the container or instance role.
func Load(ctx context.Context) (aws.Config, error) { return awsconfig.LoadDefaultConfig(ctx) }
