package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
)

// DefaultPrefix starts every key of a Tenants whose TenantsConfig.Prefix is empty, as
// in the Upstash store.
const DefaultPrefix = luascript.DefaultPrefix

// ErrBusy is returned when a key change or Delete lost 10 races in a row with other
// writes to the same tenant's keys. Nothing was changed; the call may be retried.
var ErrBusy = luascript.ErrBusy

// ErrMalformedScriptReply reports a reply of the wrong shape: a script's answer that it
// never gives, or a transaction's of the wrong length. Nothing is written on the
// strength of it.
var ErrMalformedScriptReply = luascript.ErrMalformedReply

// TenantsConfig configures a Tenants. Its zero value means the defaults.
type TenantsConfig struct {
	// Prefix starts every key, as their hash tag ("{el:t:}tenant:acme"); "" means
	// DefaultPrefix. It must not hold a brace.
	Prefix string
}

// Tenants is the store.Tenants over Redis or Valkey: the Upstash store's Tenants, with
// its commands sent over RESP. It is safe for concurrent use.
type Tenants = luascript.Tenants

// NewTenants returns a Tenants that sends its commands through c.
func NewTenants(c *Client, cfg TenantsConfig) (*Tenants, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(cfg.Prefix, "{}") {
		return nil, fmt.Errorf("store/redis: prefix %q: it is the keys' hash tag and must not hold a brace", cfg.Prefix)
	}
	return luascript.NewTenantsWith(respConn{c}, luascript.Layout{Prefix: "{" + cfg.Prefix + "}"}, "store/redis"), nil
}

// respConn is the luascript.TenantsConn and luascript.CountersConn over RESP.
type respConn struct{ c *Client }

func (r respConn) Eval(ctx context.Context, script *luascript.Script, keys []string, args ...any) (int64, error) {
	return r.c.Eval(ctx, script, keys, stringArgs(args)).ToInt64() // an integer reply, never digits in a string
}

func (r respConn) Ints(ctx context.Context, script *luascript.Script, keys []string, args ...any) ([]int64, error) {
	return scriptInts(r.c.Eval(ctx, script, keys, stringArgs(args)))
}

func (r respConn) HKeys(ctx context.Context, key string) ([]string, error) {
	return r.c.Do(ctx, func(b rueidis.Builder) rueidis.Completed { return b.Hkeys().Key(key).Build() }).AsStrSlice()
}

func (r respConn) Del(ctx context.Context, keys []string) error {
	return r.c.Do(ctx, func(b rueidis.Builder) rueidis.Completed { return b.Del().Key(keys...).Build() }).Error()
}

func (r respConn) Tenants(ctx context.Context, keys []string) ([]luascript.Stored, error) {
	results, err := r.c.DoMulti(ctx, func(b rueidis.Builder) []rueidis.Completed {
		cmds := make([]rueidis.Completed, len(keys))
		for i, k := range keys {
			cmds[i] = b.Hmget().Key(k).Field("doc", "version").Build()
		}
		return cmds
	})
	if err != nil {
		return nil, err
	}
	out := make([]luascript.Stored, len(keys))
	for i, res := range results {
		f, err := pair(res.ToArray())
		if err != nil {
			return nil, fmt.Errorf("HMGET doc version: %w", err)
		}
		out[i] = luascript.Stored{Doc: f[0], Version: f[1], Found: f[0] != ""}
	}
	return out, nil
}

func (r respConn) KeyState(ctx context.Context, tenantKey, keysKey string) (luascript.KeyState, error) {
	results, err := r.c.DoMulti(ctx, func(b rueidis.Builder) []rueidis.Completed {
		return []rueidis.Completed{b.Multi().Build(), b.Hmget().Key(tenantKey).Field("version", "keyrev").Build(),
			b.Hgetall().Key(keysKey).Build(), b.Exec().Build()}
	})
	if err != nil {
		return luascript.KeyState{}, err
	}
	replies, err := results[len(results)-1].ToArray()
	if err != nil {
		return luascript.KeyState{}, err
	}
	if len(replies) != 2 {
		return luascript.KeyState{}, fmt.Errorf("%w: EXEC answered %d replies, want 2", luascript.ErrMalformedReply, len(replies))
	}
	head, err := pair(replies[0].ToArray())
	if err != nil {
		return luascript.KeyState{}, fmt.Errorf("HMGET version keyrev: %w", err)
	}
	keys, err := replies[1].AsStrMap()
	if err != nil {
		return luascript.KeyState{}, fmt.Errorf("HGETALL: %w", err)
	}
	return luascript.KeyState{Version: head[0], Keyrev: head[1], Keys: keys, Found: head[0] != ""}, nil
}

func (r respConn) Get(ctx context.Context, key string) (string, bool, error) {
	v, err := r.c.Do(ctx, func(b rueidis.Builder) rueidis.Completed { return b.Get().Key(key).Build() }).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	return v, err == nil, err
}

func (r respConn) RangeByLex(ctx context.Context, key, start string, n int) ([]string, error) {
	return r.c.Do(ctx, func(b rueidis.Builder) rueidis.Completed {
		return b.Zrange().Key(key).Min(start).Max("+").Bylex().Limit(0, int64(n)).Build()
	}).AsStrSlice()
}

// pair reads the reply to an HMGET of two fields. A nil value reads as "": a nil first
// field, that the hash does not exist.
func pair(vals []rueidis.RedisMessage, err error) ([2]string, error) {
	if err != nil {
		return [2]string{}, err
	}
	if len(vals) != 2 {
		return [2]string{}, fmt.Errorf("%w: %d values, want 2", luascript.ErrMalformedReply, len(vals))
	}
	var f [2]string
	var errs [2]error
	for i, v := range vals {
		if !v.IsNil() {
			f[i], errs[i] = v.ToString()
		}
	}
	return f, errors.Join(errs[0], errs[1])
}
