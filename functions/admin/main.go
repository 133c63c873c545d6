// Command admin is the admin API function of edgelimit: wiring only. It reads the
// environment (internal/config), builds the tenant and counter stores, and serves the admin
// API (internal/admin) from API Gateway proxy events, REST API payload 1.0 or HTTP API
// payload 2.0. template.yaml and the Makefile's build-<LogicalId> targets build and
// deploy it as the provided.al2023 "bootstrap".
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

func main() {
	h, err := setup(context.Background())
	if err != nil {
		// A configuration error fails the cold start, with the variable named in the log.
		fmt.Fprintln(os.Stderr, "edgelimit admin:", err)
		os.Exit(1)
	}
	lambda.Start(h.Invoke)
}

func setup(ctx context.Context) (*admin.Handler, error) {
	cfg, stores, err := config.Open(ctx, os.Getenv, config.Options{Environ: os.Environ()})
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if cfg.TenantsFile != "" {
		logger.Warn("edgelimit admin: tenants come from " + config.EnvTenantsFile + ": changes made through this API last only as long as this instance")
	}
	g, err := gate.New(cfg.GateConfig(stores)) // for POST /reservations/{id}
	if err != nil {
		return nil, err
	}
	return admin.New(admin.Config{
		Tenants:      stores.Tenants,
		Counters:     stores.Counters,
		DefaultRules: cfg.DefaultRules,
		Logger:       logger,
		Settle:       g.Settle,
	})
}
