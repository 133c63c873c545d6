package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashlocal"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

const upstashLocalUsage = `usage: edgelimit upstash-local [--redis HOST:PORT] [--listen 127.0.0.1:8079] [--token TOKEN]

Serves the Upstash REST API in front of a Redis server, for tests and local
development (the Upstash backend of edgelimit dev, over a local redis-server). It
stops on SIGINT or SIGTERM.`

// runUpstashLocal is `edgelimit upstash-local`: flags and wiring; internal/upstashlocal
// serves.
func runUpstashLocal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit upstash-local", flag.ContinueOnError)
	redisAddr := fs.String("redis", "127.0.0.1:6379", "`host:port` of the Redis server to front")
	listen := fs.String("listen", "127.0.0.1:8079", "`address` to serve on (loopback only, unless --allow-remote)")
	token := fs.String("token", "", "bearer `token` clients must send (default $"+upstashrest.EnvToken+")")
	allowRemote := fs.Bool("allow-remote", false, "allow a --listen address other machines can reach")
	if code := parseArgs(fs, upstashLocalUsage, args, stdout, stderr); code != proceed {
		return code
	}
	*token = cmp.Or(*token, os.Getenv(upstashrest.EnvToken))
	if *token == "" {
		return usageError(stderr, fs, upstashLocalUsage, "no token: pass --token or set %s", upstashrest.EnvToken)
	}
	if err := upstashlocal.CheckListenAddr(*listen, *allowRemote); err != nil {
		return usageError(stderr, fs, upstashLocalUsage, "--listen: %v (pass --allow-remote to serve other machines)", err)
	}
	return serveUpstashLocal(*redisAddr, *listen, *token, stderr)
}

func serveUpstashLocal(redisAddr, listen, token string, stderr io.Writer) int {
	// Catch the signals first: a script may send one as soon as it reads the
	// "listening" line.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := upstashlocal.New(upstashlocal.Config{RedisAddr: redisAddr, Token: token})
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit upstash-local: %v\n", err)
		return 1
	}
	defer srv.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Ping(pingCtx); err != nil {
		fmt.Fprintf(stderr, "edgelimit upstash-local: cannot reach redis at %s: %v\n", redisAddr, err)
		return 1
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit upstash-local: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "upstash-local: listening on http://%s (redis %s)\n", ln.Addr(), redisAddr)
	if err := upstashlocal.Serve(ctx, ln, srv); err != nil {
		fmt.Fprintf(stderr, "edgelimit upstash-local: %v\n", err)
		return 1
	}
	return 0
}
