package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edgelimit/edgelimit/pkg/admin"
	"github.com/edgelimit/edgelimit/pkg/authorizer"
	"github.com/edgelimit/edgelimit/pkg/config"
	"github.com/edgelimit/edgelimit/pkg/devserver"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

const devUsage = `usage: edgelimit dev [--listen 127.0.0.1:3000] [--upstream URL] [--backend memory|dynamodb|upstash]

Runs the authorizer and the admin API in one process, as API Gateway would: requests
over their limits get 429 with Retry-After; allowed ones go to --upstream, or to a
built-in echo. The admin API is under /admin/, without authentication (loopback only).
It reads the same environment as the Lambda functions (EDGELIMIT_*, the table names,
UPSTASH_REDIS_REST_URL/TOKEN); --backend overrides EDGELIMIT_BACKEND (default memory).
Without EDGELIMIT_TENANTS_FILE it creates a tenant "demo" (5 requests per 10 s) and
prints a new key for it.`

// runDev is `edgelimit dev`: flags, environment and wiring; pkg/devserver does the work.
func runDev(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit dev", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:3000", "`address` to serve on (loopback)")
	upstream := fs.String("upstream", "", "`URL` that allowed requests are proxied to (default: a built-in echo)")
	backend := fs.String("backend", "", "memory, dynamodb or upstash (default: $EDGELIMIT_BACKEND, else memory)")
	if code := parseArgs(fs, devUsage, args, stdout, stderr); code != proceed {
		return code
	}
	if code := noArgs(fs, devUsage, stderr); code != proceed {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, ln, key, err := startDev(ctx, *listen, *upstream, *backend, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit dev: %v\n", err)
		return 1
	}
	printBanner(stdout, ln.Addr().String(), key)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "edgelimit dev: %v\n", err)
		return 1
	}
	return 0
}

// startDev builds the stores, the handlers and the listener.
func startDev(ctx context.Context, listen, upstream, backend string, logs io.Writer) (*http.Server, net.Listener, string, error) {
	if err := checkLoopback(listen); err != nil {
		return nil, nil, "", err
	}
	getenv := os.Getenv
	if backend != "" {
		getenv = func(k string) string {
			if k == "EDGELIMIT_BACKEND" {
				return backend
			}
			return os.Getenv(k)
		}
	}
	cfg, stores, err := config.Open(ctx, getenv, config.Options{})
	if err != nil {
		return nil, nil, "", err
	}
	key := ""
	if cfg.TenantsFile == "" {
		if key, err = devserver.EnsureDemo(ctx, stores.Tenants, limiter.Micros(time.Now())); err != nil {
			return nil, nil, "", err
		}
	}
	handler, err := devHandler(cfg, stores, upstream, logs)
	if err != nil {
		return nil, nil, "", err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, nil, "", err
	}
	return &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}, ln, key, nil
}

func devHandler(cfg config.Config, stores *config.Stores, upstream string, logs io.Writer) (http.Handler, error) {
	g, err := gate.New(cfg.GateConfig(stores))
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: cfg.LogLevel}))
	auth, err := authorizer.New(authorizer.Config{Gate: g, Logger: logger, Metrics: io.Discard})
	if err != nil {
		return nil, err
	}
	adm, err := admin.New(admin.Config{Tenants: stores.Tenants, Counters: stores.Counters, DefaultRules: cfg.DefaultRules, Logger: logger})
	if err != nil {
		return nil, err
	}
	dc := devserver.Config{Authorizer: auth, Admin: adm}
	if upstream != "" {
		if dc.Upstream, err = url.Parse(upstream); err != nil || dc.Upstream.Host == "" {
			return nil, fmt.Errorf("--upstream %q: not an absolute URL", upstream)
		}
	}
	return devserver.New(dc)
}

// checkLoopback refuses to serve the unauthenticated admin API beyond this machine.
func checkLoopback(listen string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: %v", listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--listen %q: serve on a loopback address (the admin API has no authentication here)", listen)
	}
	return nil
}

func printBanner(w io.Writer, addr, key string) {
	fmt.Fprintf(w, "edgelimit dev: listening on http://%s (admin API under /admin/)\n", addr)
	if key != "" {
		fmt.Fprintf(w, "demo key: %s\n", key)
		fmt.Fprintf(w, "try: curl -i -H 'x-api-key: %s' http://%s/hello\n", key, addr)
	}
}
