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
	head := []any{"EVALSHA", s.SHA1(c.keyLocking), len(keys)}
	for _, k := range keys {
		head = append(head, k)
	}
	cmd, err := command(append(head, args...))
	if err != nil {
		return Reply{}, fmt.Errorf("upstash: %w", err)
	}
	r, err := c.do(ctx, cmd)
	if !IsNoScript(err) {
		return r, err
	}
	cmd[0], cmd[1] = "EVAL", s.Text(c.keyLocking)
	return c.do(ctx, cmd)
}
