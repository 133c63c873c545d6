// Command httpapi is an example Lambda function behind an API Gateway HTTP API,
// protected by edgelimit's middleware: over its limits a caller gets a real 429 with
// Retry-After and RateLimit headers (an HTTP API's Lambda authorizer could only answer
// 403), and the handler does not run.
//
// It reads the same environment as the authorizer (EDGELIMIT_BACKEND, the tables or
// the Upstash URL and token, EDGELIMIT_TENANTS_FILE...). Build it like the functions:
//
//	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -tags lambda.norpc -o bootstrap ./examples/httpapi
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/middleware"
)

func main() {
	h, err := newHandler(context.Background(), os.Getenv)
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(h)
}

// hello is the API's own handler: what runs when the caller is within its limits.
func hello(ctx context.Context, e events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return events.APIGatewayV2HTTPResponse{
		StatusCode: 200,
		Headers:    map[string]string{"Content-Type": "text/plain"},
		Body:       "hello from " + e.RouteKey + "\n",
	}, nil
}

// newHandler wires the environment's stores into a gate and wraps hello.
func newHandler(ctx context.Context, getenv func(string) string) (middleware.V2Handler, error) {
	cfg, stores, err := config.Open(ctx, getenv, config.Options{})
	if err != nil {
		return nil, err
	}
	g, err := gate.New(cfg.GateConfig(stores))
	if err != nil {
		return nil, err
	}
	mw, err := middleware.New(middleware.Config{Gate: g})
	if err != nil {
		return nil, err
	}
	return mw.APIGatewayV2(hello), nil
}
