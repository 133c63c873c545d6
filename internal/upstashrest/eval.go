package upstashrest

import (
	"context"
	"fmt"
)

// Script is what Eval runs: a Lua script's text, plain or after the
// "#!lua flags=allow-key-locking" line that Config.KeyLocking asks for, and the hex
// SHA1 of each, the name EVALSHA sends. pkg/store/upstash's Scripts are such.
type Script interface {
	Text(keyLocking bool) string
	SHA1(keyLocking bool) string
}

// Eval runs the script with EVALSHA sha numkeys keys... args..., and when the
// server answers NOSCRIPT (its script cache does not hold it), sends EVAL with the
// text in the same call: one round trip when the cache is warm, two when it is
// cold. The fallback is not a retry: NOSCRIPT means the script did not run. The
// text and SHA follow Config.KeyLocking. Arguments are encoded as Do's.
func (c *Client) Eval(ctx context.Context, s Script, keys []string, args ...any) (Reply, error) {
	var k, a Args
	for _, key := range keys {
		k.AppendString(key)
	}
	for _, arg := range args {
		a.appendAny(arg)
	}
	return c.EvalArgs(ctx, s, &k, &a)
}

// EvalArgs is Eval with its keys and arguments already encoded: the way to run a
// script on a hot path without an allocation per argument.
func (c *Client) EvalArgs(ctx context.Context, s Script, keys, args *Args) (Reply, error) {
	if keys.err != nil {
		return Reply{}, fmt.Errorf("upstash: EVALSHA key %w", keys.err)
	}
	if args.err != nil {
		return Reply{}, fmt.Errorf("upstash: EVALSHA argument %w", args.err)
	}
	sha, text := s.SHA1(c.keyLocking), s.Text(c.keyLocking)
	b := getBuffer()
	defer putBuffer(b)
	b.data = appendEval(b.data[:0], "EVALSHA", sha, keys, args)
	r, err := c.do(ctx, "EVALSHA", b.data)
	if !IsNoScript(err) {
		return r, err
	}
	b.data = appendEval(b.data[:0], "EVAL", text, keys, args)
	return c.do(ctx, "EVAL", b.data)
}
