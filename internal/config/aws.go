package config

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// The variables of the AWS configuration that the Lambda runtime sets: the function
// role's credentials and the function's region.
const (
	EnvAWSAccessKeyID     = "AWS_ACCESS_KEY_ID"
	EnvAWSSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	EnvAWSSessionToken    = "AWS_SESSION_TOKEN"
	EnvAWSRegion          = "AWS_REGION"
	EnvAWSDefaultRegion   = "AWS_DEFAULT_REGION"
)

// AWSConfigFunc makes the AWS SDK configuration of the DynamoDB and Secrets Manager
// clients (Options.AWSConfig).
type AWSConfigFunc func(context.Context) (aws.Config, error)

// awsConfig returns the SDK configuration of opts.AWSConfig, or else LambdaAWSConfig's
// from the process's environment.
func (c Config) awsConfig(ctx context.Context, opts Options) (aws.Config, error) {
	if opts.AWSConfig != nil {
		cfg, err := opts.AWSConfig(ctx)
		if err != nil {
			return aws.Config{}, fmt.Errorf("config: AWS configuration: %w", err)
		}
		return cfg, nil
	}
	return LambdaAWSConfig(os.Getenv)
}

// LambdaAWSConfig returns the AWS configuration a Lambda function runs with, read
// through getenv: the static credentials AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN, and the region AWS_REGION (else AWS_DEFAULT_REGION), all of which
// the runtime sets. It is what the functions use: it needs none of the SDK's loaders
// of shared files, SSO, STS, IMDS or credential processes, which the SDK's
// config.LoadDefaultConfig links into the bootstrap (about 2 MB of it) and which a
// function never reaches. A missing variable is an error that names it. Elsewhere
// (`edgelimit dev`, a server), Options.AWSConfig takes the SDK's default chain
// (internal/config/awsdefault).
func LambdaAWSConfig(getenv func(string) string) (aws.Config, error) {
	id, secret := getenv(EnvAWSAccessKeyID), getenv(EnvAWSSecretAccessKey)
	region := cmp.Or(getenv(EnvAWSRegion), getenv(EnvAWSDefaultRegion))
	switch {
	case id == "" || secret == "":
		return aws.Config{}, fmt.Errorf("config: AWS credentials: %s and %s are not set (the Lambda runtime sets them)", EnvAWSAccessKeyID, EnvAWSSecretAccessKey)
	case region == "":
		return aws.Config{}, fmt.Errorf("config: AWS region: %s is not set (the Lambda runtime sets it)", EnvAWSRegion)
	}
	return aws.Config{Region: region,
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, getenv(EnvAWSSessionToken))}, nil
}
