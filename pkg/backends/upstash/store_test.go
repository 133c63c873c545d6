package upstash

import (
	"os"

	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/backends"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/backends/storetest"
)

// newTestStore connects to the local Upstash-compatible server in front of a real
// redis-server that `make test` starts.
func newTestStore(t testing.TB, transport *testenv.CountingTransport) *Store {
	t.Helper()
	url, token := testenv.UpstashURL(t)
	cfg := Config{URL: url, Token: token}
	if transport != nil {
		transport.Next = defaultHTTPClient().Transport
		cfg.HTTPClient = &http.Client{Transport: transport}
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return NewStore(c, StoreConfig{})
}

func TestStoreConformance(t *testing.T) {
	storetest.Run(t, newTestStore(t, nil), storetest.Options{})
}

func TestMain(m *testing.M) {
	storetest.MaybeChild(func() (backends.Store, error) {
		c, err := NewClient(Config{URL: os.Getenv(testenv.EnvUpstashURL), Token: os.Getenv(testenv.EnvUpstashToken)})
		if err != nil {
			return nil, err
		}
		return NewStore(c, StoreConfig{}), nil
	})
	os.Exit(m.Run())
}

func TestStoreExactAcrossProcesses(t *testing.T) {
	storetest.Exactness(t, newTestStore(t, nil))
}
