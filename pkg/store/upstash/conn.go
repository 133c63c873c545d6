package upstash

import (
	"context"
	"fmt"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

// restConn is the luascript.TenantsConn and luascript.CountersConn over the Upstash
// REST client.
type restConn struct{ c *upstashrest.Client }

func (r restConn) Eval(ctx context.Context, script *luascript.Script, keys []string, args ...any) (int64, error) {
	reply, err := r.c.Eval(ctx, script, keys, args...)
	if err != nil {
		return 0, err
	}
	return reply.Int64()
}

func (r restConn) Ints(ctx context.Context, script *luascript.Script, keys []string, args ...any) ([]int64, error) {
	reply, err := r.c.Eval(ctx, script, keys, args...)
	if err != nil {
		return nil, err
	}
	return reply.Int64s()
}

func (r restConn) HKeys(ctx context.Context, key string) ([]string, error) {
	reply, err := r.c.Do(ctx, "HKEYS", key)
	if err != nil {
		return nil, err
	}
	return stringsOf(reply, false)
}

func (r restConn) Del(ctx context.Context, keys []string) error {
	del := []any{"DEL"}
	for _, k := range keys {
		del = append(del, k)
	}
	_, err := r.c.Do(ctx, del...)
	return err
}

func (r restConn) Tenants(ctx context.Context, keys []string) ([]luascript.Stored, error) {
	cmds := make([][]any, len(keys))
	for i, k := range keys {
		cmds[i] = []any{"HMGET", k, "doc", "version"}
	}
	results, err := r.c.Pipeline(ctx, cmds)
	if err != nil {
		return nil, err
	}
	out := make([]luascript.Stored, len(keys))
	for i, res := range results {
		if res.Err != nil {
			return nil, res.Err
		}
		f, err := stringsOf(res.Reply, true)
		if err != nil || len(f) != 2 {
			return nil, fmt.Errorf("%w: HMGET doc version: %s", upstashrest.ErrMalformedReply, res.Reply.Shape())
		}
		out[i] = luascript.Stored{Doc: f[0], Version: f[1], Found: f[0] != ""}
	}
	return out, nil
}

func (r restConn) KeyState(ctx context.Context, tenantKey, keysKey string) (luascript.KeyState, error) {
	results, err := r.c.MultiExec(ctx, [][]any{{"HMGET", tenantKey, "version", "keyrev"}, {"HGETALL", keysKey}})
	if err != nil {
		return luascript.KeyState{}, err
	}
	for _, res := range results {
		if res.Err != nil {
			return luascript.KeyState{}, res.Err
		}
	}
	head, err := stringsOf(results[0].Reply, true)
	if err != nil || len(head) != 2 {
		return luascript.KeyState{}, fmt.Errorf("%w: HMGET version keyrev: %s", upstashrest.ErrMalformedReply, results[0].Reply.Shape())
	}
	flat, err := stringsOf(results[1].Reply, false)
	if err != nil || len(flat)%2 != 0 {
		return luascript.KeyState{}, fmt.Errorf("%w: HGETALL: %s", upstashrest.ErrMalformedReply, results[1].Reply.Shape())
	}
	st := luascript.KeyState{Version: head[0], Keyrev: head[1], Keys: make(map[string]string, len(flat)/2), Found: head[0] != ""}
	for i := 0; i < len(flat); i += 2 {
		st.Keys[flat[i]] = flat[i+1]
	}
	return st, nil
}

func (r restConn) Get(ctx context.Context, key string) (string, bool, error) {
	reply, err := r.c.Do(ctx, "GET", key)
	if err != nil || reply.IsNil() {
		return "", false, err
	}
	v, err := reply.String()
	return v, err == nil, err
}

func (r restConn) RangeByLex(ctx context.Context, key, start string, n int) ([]string, error) {
	reply, err := r.c.Do(ctx, "ZRANGE", key, start, "+", "BYLEX", "LIMIT", 0, n)
	if err != nil {
		return nil, err
	}
	return stringsOf(reply, false)
}

// stringsOf returns an array reply of strings; with nils, a nil element gives "".
func stringsOf(r upstashrest.Reply, nils bool) ([]string, error) {
	elems, err := r.Array()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if nils && e.IsNil() {
			continue
		}
		if out[i], err = e.String(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
