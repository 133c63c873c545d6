package redis

import (
	"os"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/backends"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
)

// envTopology tells a child process of storetest.Processes which server its parent
// tests: "standalone" or "cluster".
const envTopology = "EDGELIMIT_REDIS_TEST_TOPOLOGY"

// topology is one kind of server that `make test` starts.
type topology struct {
	name   string
	config func(testing.TB) Config
}

var topologies = []topology{
	{"standalone", func(tb testing.TB) Config { return Config{Addrs: []string{testenv.RedisAddr(tb)}} }},
	{"cluster", func(tb testing.TB) Config { return Config{Addrs: testenv.RedisCluster(tb), Cluster: true} }},
}

// forEachTopology runs f once per topology, as a subtest named after it.
func forEachTopology(t *testing.T, f func(t *testing.T, topo topology)) {
	for _, topo := range topologies {
		t.Run(topo.name, func(t *testing.T) { f(t, topo) })
	}
}

// newTestClient connects to the topology's server, and closes the client after the
// test.
func newTestClient(tb testing.TB, cfg Config) *Client {
	tb.Helper()
	c, err := NewClient(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return c
}

func TestStoreConformance(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		storetest.Run(t, NewStore(newTestClient(t, topo.config(t)), StoreConfig{}), storetest.Options{})
	})
}

func TestStoreExactAcrossProcesses(t *testing.T) {
	forEachTopology(t, func(t *testing.T, topo topology) {
		t.Setenv(envTopology, topo.name)
		storetest.Exactness(t, NewStore(newTestClient(t, topo.config(t)), StoreConfig{}))
	})
}

func TestMain(m *testing.M) {
	storetest.MaybeChild(func() (backends.Store, error) {
		cfg := Config{Addrs: []string{os.Getenv(testenv.EnvRedisAddr)}}
		if os.Getenv(envTopology) == "cluster" {
			cfg = Config{Addrs: strings.Split(os.Getenv(testenv.EnvRedisCluster), ","), Cluster: true}
		}
		c, err := NewClient(cfg)
		if err != nil {
			return nil, err
		}
		return NewStore(c, StoreConfig{}), nil
	})
	os.Exit(m.Run())
}
