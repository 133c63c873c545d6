package redis

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestTLSAndAuth runs against a redis-server of the test's own that speaks TLS only
// (a throwaway CA) and requires a password, as ElastiCache with in-transit encryption
// and an AUTH token does: the counter suite passes whole and tenants are stored with
// the CA and the token; without the token, with a wrong one, without the CA or without
// TLS, a decision fails (within its deadline) and says why.
func TestTLSAndAuth(t *testing.T) {
	const token = "an-auth-token-of-16-to-128-chars"
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{TLS: true, Password: token})
	withCA := &tls.Config{RootCAs: srv.TLS.Pool(t), MinVersion: tls.VersionTLS12}
	good := newTestClient(t, Config{Addrs: []string{srv.Addr}, TLS: withCA, Password: token})
	t.Run("Counters", func(t *testing.T) {
		storetest.RunCounters(t, NewCounters(good, CountersConfig{}), storetest.CountersOptions{})
	})
	t.Run("Tenants", func(t *testing.T) {
		tenants, err := NewTenants(good, TenantsConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tenants.Create(t.Context(), storetest.Tenant("tls")); err != nil {
			t.Fatal(err)
		}
		if got, err := tenants.Get(t.Context(), "tls"); err != nil || got.Version != 1 {
			t.Fatalf("Get: %+v, %v", got, err)
		}
	})
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // in the error
	}{
		{"no token", Config{TLS: withCA}, "NOAUTH"},
		{"a wrong token", Config{TLS: withCA, Password: "not-the-token"}, "WRONGPASS"},
		{"no CA", Config{TLS: &tls.Config{MinVersion: tls.VersionTLS12}, Password: token}, "certificate"},
		{"no TLS", Config{Password: token}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Addrs, tc.cfg.DialTimeout = []string{srv.Addr}, time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 5, "period": "1s"}`)
			start := time.Now()
			_, err := store.DecideOne(ctx, NewCounters(newTestClient(t, tc.cfg), CountersConfig{}), storetest.Key(t, "k"), set, storetest.Trace(1, 1, 1, storetest.Burst)[0].At, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("decision: %v, want an error saying %q", err, tc.want)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Fatalf("the error came after %v", d)
			}
		})
	}
}
