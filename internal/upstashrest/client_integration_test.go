package upstashrest_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

// These tests run our client against the local Upstash server (internal/upstashlocal,
// itself checked against the official npm client) in front of a real redis-server.
// They do the same operations as internal/upstashlocal/testdata/official_client.mjs.

// liveClient returns a client of the test server; through proxy, when not nil, which
// counts its requests.
func liveClient(t *testing.T, cfg upstashrest.Config, proxy *testenv.CountingProxy) *upstashrest.Client {
	t.Helper()
	url, token := testenv.UpstashURL(t)
	if cfg.Token == "" {
		cfg.Token = token
	}
	cfg.URL = url
	if proxy != nil {
		cfg.URL = proxy.URL
	}
	c, err := upstashrest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// liveKey returns a key prefix unique to this run: the server is shared.
func liveKey(name string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return "ittest:" + hex.EncodeToString(b) + ":" + name
}

// errorCode returns the Redis error code of a *CommandError, or "".
func errorCode(err error) string {
	var ce *upstashrest.CommandError
	if errors.As(err, &ce) {
		return ce.Code()
	}
	return ""
}

func liveCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestLiveCommands(t *testing.T) {
	c := liveClient(t, upstashrest.Config{}, nil)
	ctx, k := liveCtx(t), liveKey("k")

	tests := []struct {
		name string
		args []any
		want string // the reply printed with %v
	}{
		{"set", []any{"SET", k, "hello"}, `"OK"`},
		{"get", []any{"GET", k}, `"hello"`},
		{"set unicode", []any{"SET", k + ":u", "héllo ✓ 日本"}, `"OK"`},
		{"get unicode", []any{"GET", k + ":u"}, `"héllo ✓ 日本"`},
		{"get missing", []any{"GET", k + ":missing"}, `nil`},
		{"set 2^53", []any{"SET", k + ":n", int64(1) << 53}, `"OK"`},
		{"incr past 2^53 is exact", []any{"INCR", k + ":n"}, `9007199254740993`},
		{"incrby", []any{"INCRBY", k + ":n2", 42}, `42`},
		{"binary reply", []any{"EVAL", `return string.char(0, 255, 10)`, 0}, `"\x00\xff\n"`},
		{"eval array", []any{"EVAL", "return {KEYS[1], ARGV[1], 7, false}", 1, "key", "a"}, `["key" "a" 7 nil]`},
	}
	for _, tt := range tests {
		r, err := c.Do(ctx, tt.args...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := fmtReply(r); got != tt.want {
			t.Errorf("%s: %v = %s, want %s", tt.name, tt.args[0], got, tt.want)
		}
	}

	if _, err := c.Do(ctx, "HGET", k, "f"); errorCode(err) != "WRONGTYPE" {
		t.Errorf("HGET on a string: %v, want a WRONGTYPE CommandError", err)
	}
	if _, err := c.Do(ctx, "EVALSHA", "0000000000000000000000000000000000000000", 0); !upstashrest.IsNoScript(err) {
		t.Errorf("EVALSHA of an unknown script: %v, want NOSCRIPT", err)
	}
}

func TestLiveWrongToken(t *testing.T) {
	c := liveClient(t, upstashrest.Config{Token: "wrong-token"}, nil)
	if _, err := c.Do(liveCtx(t), "GET", liveKey("k")); !errors.Is(err, upstashrest.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrUnauthorized", err)
	}
}

func TestLiveEval(t *testing.T) {
	for _, keyLocking := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "key locking"}[keyLocking]
		t.Run(name, func(t *testing.T) {
			url, _ := testenv.UpstashURL(t)
			proxy := testenv.NewCountingProxy(t, url)
			c := liveClient(t, upstashrest.Config{KeyLocking: keyLocking}, proxy)
			ctx, k := liveCtx(t), liveKey("counter")
			// A comment unique to this run makes the script new to the server: a cold cache.
			script := upstashrest.NewScript("-- " + liveKey("script") + "\n" +
				"return {redis.call('INCRBY', KEYS[1], ARGV[1]), tonumber(ARGV[2])}")

			for i, want := range []struct{ counter, trips int64 }{{5, 2}, {10, 1}, {15, 1}} {
				r, err := c.Eval(ctx, script, []string{k}, 5, int64(1)<<53+1)
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.Int64s()
				if err != nil || len(got) != 2 || got[0] != want.counter {
					t.Errorf("call %d: reply %v, %v; want [%d ...]", i, r, err, want.counter)
				}
				if n := proxy.Reset(); n != want.trips {
					t.Errorf("call %d: %d round trips, want %d", i, n, want.trips)
				}
			}
		})
	}
}

func TestLivePipelineAndMultiExec(t *testing.T) {
	c := liveClient(t, upstashrest.Config{}, nil)
	ctx, k := liveCtx(t), liveKey("p")

	res, err := c.Pipeline(ctx, [][]any{{"SET", k, "v"}, {"INCR", k + ":n"}, {"GET", k}, {"GET", k + ":missing"}, {"HGET", k, "f"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"OK"`, `1`, `"v"`, `nil`}
	for i, w := range want {
		if res[i].Err != nil || fmtReply(res[i].Reply) != w {
			t.Errorf("pipeline result %d = %v, %v; want %s", i, res[i].Reply, res[i].Err, w)
		}
	}
	if code := errorCode(res[4].Err); code != "WRONGTYPE" {
		t.Errorf("pipeline result 4 err = %v, want WRONGTYPE", res[4].Err)
	}

	res, err = c.MultiExec(ctx, [][]any{{"INCR", k + ":t"}, {"INCR", k + ":t"}, {"GET", k + ":t"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{`1`, `2`, `"2"`} {
		if res[i].Err != nil || fmtReply(res[i].Reply) != w {
			t.Errorf("multi-exec result %d = %v, %v; want %s", i, res[i].Reply, res[i].Err, w)
		}
	}

	_, err = c.MultiExec(ctx, [][]any{{"INCR", k + ":t"}, {"GET"}})
	if code := errorCode(err); code != "EXECABORT" {
		t.Errorf("transaction with a malformed command: %v, want EXECABORT", err)
	}
	if r, err := c.Do(ctx, "GET", k+":t"); err != nil || fmtReply(r) != `"2"` {
		t.Errorf("after the aborted transaction: %v, %v; want \"2\"", r, err)
	}
}
