package testenv

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// DynamoDBLocal returns an SDK client for DynamoDB Local at url, signing with the
// static key id and secret keyID (DynamoDB Local takes any signature, but only letters
// and digits as a key id; with -sharedDb every key id sees the same tables).
func DynamoDBLocal(url, keyID string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider(keyID, keyID, "")})
}
