// Package hello is the smallest aws-lambda-go REST authorizer: it allows every request.
// It is the peer edgelimit's authorizer is measured against: in process by
// internal/authorizer's BenchmarkInvokeWarm, and built into a bootstrap
// (internal/authorizer/testdata/hello, and internal/authorizer/testdata/hellodynamodb,
// which also makes a DynamoDB client at init) by functions/authorizer's cold-start
// benchmark.
package hello

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
)

// Handle allows the request on its methodArn.
func Handle(_ context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: "hello",
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{
				{Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{ev.MethodArn}},
			},
		},
	}, nil
}
