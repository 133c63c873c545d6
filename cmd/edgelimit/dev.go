package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
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
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/config/awsdefault"
	"github.com/edgelimit/edgelimit/internal/console"
	"github.com/edgelimit/edgelimit/internal/devserver"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

const devUsage = `usage: edgelimit dev [--listen 127.0.0.1:3000] [--upstream URL] [--backend memory|dynamodb|upstash|redis] [--redis ADDR]

Runs the authorizer and the admin API in one process, as API Gateway would: requests
over their limits get 429 with Retry-After; allowed ones go to --upstream, or to a
built-in echo. The admin API is under /admin/, without authentication (loopback only),
and a console (a web page over the admin API) under /console/.

It reads the same environment as the Lambda functions (EDGELIMIT_*, the table names,
UPSTASH_REDIS_REST_URL/TOKEN; an EDGELIMIT_* name it does not know fails the start,
naming the closest); --backend overrides EDGELIMIT_BACKEND (default memory),
--redis EDGELIMIT_REDIS_ADDR (host:port of Redis or Valkey; it implies --backend redis).
Unless set, EDGELIMIT_CONFIG_TTL is 0 here (admin changes apply at once) and
EDGELIMIT_LATENCY_BUDGET 5s (local services warm up slowly). It takes
the port first (a busy port writes nothing), creates missing DynamoDB tables, and,
without EDGELIMIT_TENANTS_FILE, the tenant "demo" (5 requests per 10 s, the window
opened by the first request) when it does not exist. Each start prints a new demo key
and deletes the one the previous start printed; other keys are kept.`

// The defaults of dev where the environment sets nothing: no config cache (admin
// changes apply at once), and a latency budget that local services fit in while they
// warm up on a busy machine (DynamoDB Local's first calls take about 100 ms, the
// deployed default, and over a second under load): a slow answer rather than the fail
// mode's.
var devDefaults = map[string]string{config.EnvConfigTTL: "0", config.EnvLatencyBudget: "5s"}

// devOptions are what `edgelimit dev` is given.
type devOptions struct {
	listen, upstream, backend string
	redis                     string              // EDGELIMIT_REDIS_ADDR
	getenv                    func(string) string // os.Getenv
	environ                   []string            // os.Environ(), whose names dev checks
}

// runDev is `edgelimit dev`: flags, environment and wiring; internal/devserver does the work.
func runDev(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit dev", flag.ContinueOnError)
	o := devOptions{getenv: os.Getenv, environ: os.Environ()}
	fs.StringVar(&o.listen, "listen", "127.0.0.1:3000", "`address` to serve on (loopback)")
	fs.StringVar(&o.upstream, "upstream", "", "`URL` that allowed requests are proxied to (default: a built-in echo)")
	fs.StringVar(&o.backend, "backend", "", "memory, dynamodb, upstash or redis (default: $EDGELIMIT_BACKEND, else memory)")
	fs.StringVar(&o.redis, "redis", "", "`host:port` of Redis or Valkey, for --backend redis (default: $EDGELIMIT_REDIS_ADDR)")
	if code := parseArgs(fs, devUsage, args, stdout, stderr); code != proceed {
		return code
	}
	if err := o.check(); err != nil {
		return usageError(stderr, fs, devUsage, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, ln, demo, err := startDev(ctx, o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit dev: %v\n", err)
		return 1
	}
	printBanner(stdout, ln.Addr().String(), demo)
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

// check refuses bad flags before anything starts: a --listen beyond loopback, a
// --backend this binary lacks, an --upstream that is not an http(s) URL with a host.
func (o devOptions) check() error {
	if err := checkLoopback(o.listen); err != nil {
		return err
	}
	if o.backend != "" && !slices.Contains(config.Backends(), strings.ToLower(o.backend)) {
		return fmt.Errorf("--backend %q: want one of %s", o.backend, strings.Join(config.Backends(), ", "))
	}
	if o.upstream == "" {
		return nil
	}
	u, err := url.Parse(o.upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--upstream %q: want an absolute http:// or https:// URL, such as http://127.0.0.1:8080", o.upstream)
	}
	return nil
}

// startDev takes the port first, so that a busy one fails before anything is written,
// then prepares the stores and the handlers, saying what it does on progress.
func startDev(ctx context.Context, o devOptions, progress io.Writer) (*http.Server, net.Listener, devserver.Demo, error) {
	ln, err := net.Listen("tcp", o.listen)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, nil, devserver.Demo{}, fmt.Errorf("--listen %s: the port is in use (another edgelimit dev?): stop it, or pass --listen 127.0.0.1:ANOTHER_PORT; nothing was written", o.listen)
	}
	if err != nil {
		return nil, nil, devserver.Demo{}, err
	}
	handler, demo, err := prepareDev(ctx, o, progress)
	if err != nil {
		ln.Close()
		return nil, nil, devserver.Demo{}, err
	}
	return &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}, ln, demo, nil
}

// prepareDev loads the configuration, creates missing DynamoDB tables and the demo
// tenant, and builds the gateway.
func prepareDev(ctx context.Context, o devOptions, progress io.Writer) (http.Handler, devserver.Demo, error) {
	var demo devserver.Demo
	if err := config.CheckNames(o.environ); err != nil {
		return nil, demo, err
	}
	cfg, err := config.Load(o.env())
	if err != nil {
		return nil, demo, err
	}
	fmt.Fprintf(progress, "edgelimit dev: backend %s%s\n", cfg.Backend, describeBackend(cfg))
	// Not a Lambda function: the SDK's default chain (profiles, SSO) finds credentials.
	opts := config.Options{AWSConfig: awsdefault.Load}
	created, err := cfg.CreateTables(ctx, opts)
	for _, table := range created {
		fmt.Fprintf(progress, "edgelimit dev: created the DynamoDB table %s\n", table)
	}
	if err != nil {
		return nil, demo, err
	}
	stores, err := cfg.Build(ctx, opts)
	if err != nil {
		return nil, demo, err
	}
	if cfg.TenantsFile == "" {
		if demo, err = devserver.EnsureDemo(ctx, stores.Tenants, limiter.Micros(time.Now())); err != nil {
			return nil, demo, err
		}
		describeDemo(progress, demo)
	}
	handler, err := devHandler(cfg, stores, o, progress)
	return handler, demo, err
}

// env is the environment dev reads: getenv's, with --backend (when given) in place of
// EDGELIMIT_BACKEND, --redis (when given) in place of EDGELIMIT_REDIS_ADDR and then the
// redis backend unless another is chosen, and devDefaults where it sets nothing.
func (o devOptions) env() func(string) string {
	return func(name string) string {
		v := o.getenv(name)
		unset := strings.TrimSpace(v) == ""
		switch {
		case name == config.EnvBackend && o.backend != "":
			return o.backend
		case name == config.EnvBackend && o.redis != "" && unset:
			return config.BackendRedis
		case name == config.EnvRedisAddr && o.redis != "":
			return o.redis
		}
		if d, ok := devDefaults[name]; ok && unset {
			return d
		}
		return v
	}
}

func describeBackend(cfg config.Config) string {
	switch cfg.Backend {
	case config.BackendDynamoDB:
		s := fmt.Sprintf(" (tables %s and %s", cfg.TenantsTable, cfg.CountersTable)
		if cfg.DynamoDBEndpoint != "" {
			s += " at " + cfg.DynamoDBEndpoint
		}
		return s + ")"
	case config.BackendUpstash:
		return " (" + cfg.UpstashURL + ")"
	case config.BackendRedis:
		return " (" + strings.Join(cfg.Redis.Addrs, ",") + map[bool]string{true: ", cluster"}[cfg.Redis.Cluster] +
			map[bool]string{true: ", TLS"}[cfg.Redis.TLS] + ")"
	}
	return " (this process only)"
}

func describeDemo(progress io.Writer, demo devserver.Demo) {
	switch {
	case demo.Created:
		fmt.Fprintln(progress, "edgelimit dev: created the demo tenant")
	case demo.Replaced != "":
		fmt.Fprintf(progress, "edgelimit dev: deleted the demo key of the previous start (key id %s)\n", demo.Replaced)
	}
}

// devHandler is the gateway of o.upstream with the console, behind devserver.Guard for
// o.listen.
func devHandler(cfg config.Config, stores *config.Stores, o devOptions, logs io.Writer) (http.Handler, error) {
	if stores.ReservationSecret == nil { // EDGELIMIT_RESERVATION_SECRET unset: one per process
		stores.ReservationSecret = make([]byte, gate.MinSecretBytes)
		rand.Read(stores.ReservationSecret)
	}
	g, err := gate.New(cfg.GateConfig(stores))
	if err != nil {
		return nil, err
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: cfg.LogLevel}))
	traffic := console.NewTraffic(nil) // the console charts the authorizer's metrics
	auth, err := authorizer.New(authorizer.Config{Gate: g, Logger: logger, Metrics: traffic})
	if err != nil {
		return nil, err
	}
	adm, err := admin.New(admin.Config{Tenants: stores.Tenants, Counters: stores.Counters, DefaultRules: cfg.DefaultRules, Logger: logger,
		Settle: g.Settle})
	if err != nil {
		return nil, err
	}
	dc := devserver.Config{Authorizer: auth, Admin: adm, Settle: g.Settle, Logger: logger, Tenants: stores.Tenants}
	if o.upstream != "" {
		if dc.Upstream, err = url.Parse(o.upstream); err != nil { // checked by devOptions.check
			return nil, err
		}
	}
	gw, err := devserver.New(dc)
	if err != nil {
		return nil, err
	}
	return devserver.Guard(o.listen, console.Mount(gw, traffic)), nil
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

func printBanner(w io.Writer, addr string, demo devserver.Demo) {
	fmt.Fprintf(w, "edgelimit dev: listening on http://%s (admin API under /admin/)\n", addr)
	fmt.Fprintf(w, "console: http://%s%s\n", addr, console.PagePath)
	if demo.Rules != nil {
		rules, _ := json.Marshal(demo.Rules)
		fmt.Fprintf(w, "demo tenant %q, rules %s\n", devserver.DemoTenantID, rules)
	}
	if demo.Key != "" {
		fmt.Fprintf(w, "demo key: %s\n", demo.Key)
		fmt.Fprintf(w, "try: curl -i -H 'x-api-key: %s' http://%s/hello\n", demo.Key, addr)
	}
	if demo.Full {
		fmt.Fprintf(w, "no demo key: the demo tenant holds %d keys already. List them with\n  curl http://%s/admin/tenants/%s/keys\nand delete one with\n  curl -X DELETE 'http://%[2]s/admin/tenants/%[3]s/keys/KEY_ID?purge=true'\n",
			store.MaxKeysPerTenant, addr, devserver.DemoTenantID)
	}
}
