// Command hello is the smallest aws-lambda-go REST authorizer: it allows every request.
// It is the baseline of the cold-start comparison in functions/authorizer (bootstrap
// size and the emulator's Init Duration), built the same way as the real authorizer.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func handle(_ context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
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

func main() { lambda.Start(handle) }
