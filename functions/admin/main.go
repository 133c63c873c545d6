// Command admin is the admin API function: a placeholder until its wiring lands.
// It answers every invocation with an error; template.yaml and the Makefile's
// build-<LogicalId> targets build and deploy it as the provided.al2023 "bootstrap".
package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aws/aws-lambda-go/lambda"

	_ "time/tzdata" // the runtime image may lack zoneinfo
)

func handle(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("not implemented yet")
}

func main() { lambda.Start(handle) }
