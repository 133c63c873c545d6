package gate_test

import (
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/redis"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

// counterBackend builds a counter store the gate's cross-backend tests run against:
// memory in process, Redis and Upstash when their services are up (skipped otherwise).
type counterBackend struct {
	name string
	open func(t *testing.T) store.Counters
}

var counterBackends = []counterBackend{
	{"memory", func(*testing.T) store.Counters { return memory.NewCounters(memory.CountersConfig{}) }},
	{"redis", openRedis},
	{"upstash", openUpstash},
}

func openRedis(t *testing.T) store.Counters {
	client, err := redis.NewClient(redis.Config{Addrs: []string{testenv.RedisAddr(t)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return redis.NewCounters(client, redis.CountersConfig{})
}

func openUpstash(t *testing.T) store.Counters {
	base, token := testenv.UpstashURL(t)
	client, err := upstashrest.NewClient(upstashrest.Config{URL: base, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return upstash.NewCounters(client, upstash.CountersConfig{})
}

// uniqueID returns a tenant id no earlier run used, since a shared service keeps the
// counters of earlier runs.
func uniqueID(t testing.TB, prefix string) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}
