// Command authorizer is the Lambda REQUEST and TOKEN authorizer of edgelimit: wiring only. It
// reads the environment (internal/config), builds the stores, opens their connection
// (config.Stores.WarmUp) and the gate (pkg/gate), and serves API Gateway's authorizer
// events (internal/authorizer). template.yaml and the Makefile's build-<LogicalId> targets
// build and deploy it as the provided.al2023 "bootstrap".
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

func main() {
	h, err := setup(context.Background())
	if err != nil {
		// A configuration error fails the cold start, with the variable named in the log.
		fmt.Fprintln(os.Stderr, "edgelimit authorizer:", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

func setup(ctx context.Context) (*authorizer.Handler, error) {
	cfg, stores, err := config.Open(ctx, os.Getenv, config.Options{Environ: os.Environ()})
	if err != nil {
		return nil, err
	}
	// Connect during init, so that the first decision does not; a store that is down
	// does not fail the cold start (the first decision fails over if it still is).
	if err := stores.WarmUp(ctx); err != nil {
		slog.New(slog.NewJSONHandler(os.Stdout, nil)).Warn("store warm-up failed", "error", err.Error())
	}
	g, err := gate.New(cfg.GateConfig(stores))
	if err != nil {
		return nil, err
	}
	return authorizer.New(authorizer.Config{
		Gate:            g,
		HTTPResponse:    authorizer.HTTPResponse(cfg.HTTPAPIResponse),
		UsageIdentifier: authorizer.UsageIdentifier(cfg.UsageIdentifier),
		LogLevel:        cfg.LogLevel, // JSON lines on stdout
	})
}
