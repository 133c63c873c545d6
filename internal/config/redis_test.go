package config_test

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/redis"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestLoadRedis(t *testing.T) {
	requireBackend(t, config.BackendRedis)
	c, err := config.Load(envOf(map[string]string{"EDGELIMIT_BACKEND": "redis",
		"EDGELIMIT_REDIS_ADDR": "a.example:6379, b.example:6380", "EDGELIMIT_REDIS_CLUSTER": "true", "EDGELIMIT_REDIS_TLS": "1",
		"EDGELIMIT_REDIS_USERNAME": "edge", "EDGELIMIT_REDIS_AUTH_TOKEN": "tok", "EDGELIMIT_REDIS_AUTH_TOKEN_SECRET_ARN": "arn:x",
		"EDGELIMIT_REDIS_PREFIX": "rl:"}))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Redis{Addrs: []string{"a.example:6379", "b.example:6380"}, Cluster: true, TLS: true, Username: "edge",
		Token: "tok", SecretARN: "arn:x", Prefix: "rl:"}
	if c.Backend != "redis" || !reflect.DeepEqual(c.Redis, want) {
		t.Fatalf("%+v, want %+v", c.Redis, want)
	}
	for _, env := range []map[string]string{
		{"EDGELIMIT_BACKEND": "redis"},
		{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": "redis://a.example:6379"},
		{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": "a.example"},
		{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": "a:1", "EDGELIMIT_REDIS_TLS": "yes please"},
		{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": "a:1", "EDGELIMIT_REDIS_CLUSTER": "2"},
		{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": "a:1", "EDGELIMIT_REDIS_PREFIX": "{el}:"},
	} {
		if _, err := config.Load(envOf(env)); err == nil || !strings.Contains(err.Error(), "EDGELIMIT_REDIS_") {
			t.Errorf("%v: %v, want an error naming the EDGELIMIT_REDIS_ variable", env, err)
		}
	}
}

// The redis backend from the environment, against a redis-server that requires a
// password: the token read from Secrets Manager (one signed GetSecretValue) opens it,
// a wrong one does not; EDGELIMIT_REDIS_TLS=true speaks TLS, checked against the
// system's CAs (so a server whose CA they lack is refused).
func TestRedisFromEnvironment(t *testing.T) {
	requireBackend(t, config.BackendRedis)
	const token = "the-redis-auth-token"
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{Password: token})
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	secrets := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || !strings.Contains(string(body), "secret:redis") ||
			!strings.Contains(r.Header.Get("Authorization"), "/eu-west-1/secretsmanager/aws4_request") {
			w.WriteHeader(400)
			return
		}
		io.WriteString(w, `{"SecretString": "`+token+`"}`)
	}))
	defer secrets.Close()
	env := map[string]string{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": srv.Addr,
		"EDGELIMIT_REDIS_AUTH_TOKEN_SECRET_ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:redis",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER":      secrets.URL, "EDGELIMIT_REDIS_PREFIX": "el:t:cfg:"}
	if err := decideThrough(t, env); err != nil {
		t.Fatalf("with the token from Secrets Manager: %v", err)
	}
	env["EDGELIMIT_REDIS_AUTH_TOKEN"] = "a-wrong-token"
	if err := decideThrough(t, env); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("with a wrong token: %v, want WRONGPASS", err)
	}
	tlsSrv := testenv.StartRedisServer(t, testenv.RedisServerConfig{TLS: true})
	env = map[string]string{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": tlsSrv.Addr, "EDGELIMIT_REDIS_TLS": "true"}
	if err := decideThrough(t, env); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("TLS against a CA the system lacks: %v, want a certificate error", err)
	}
}

// decideThrough builds the stores of env and decides one request with them, after
// storing a tenant.
func decideThrough(t *testing.T, env map[string]string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, st, err := config.Open(ctx, envOf(env), config.Options{})
	if err != nil {
		return err
	}
	if _, err := st.Tenants.Create(ctx, storetest.Tenant("cfg-"+strings.ToLower(rand.Text()[:8]))); err != nil {
		return err
	}
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 5, "period": "1s"}`)
	_, err = store.DecideOne(ctx, st.Counters, storetest.Key(t, "k"), set, limiter.Micros(time.Now()), 1)
	return err
}

// Regression (a rotated Redis AUTH token was read again only at a cold start:
// WRONGPASS, then the fail mode, until the instance was recycled): with the token in
// Secrets Manager, the server's password and the secret change and the connections
// are killed; the decisions of the same stores fail for a bounded time, the refusal
// makes the client read the secret again, and the next connections authenticate
// with the new token.
func TestRotatedRedisTokenIsReadAgain(t *testing.T) {
	requireBackend(t, config.BackendRedis)
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{Password: "the-old-redis-auth-token"})
	secret := newFakeSecret(t, "the-old-redis-auth-token")
	c, err := config.Load(envOf(map[string]string{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": srv.Addr,
		"EDGELIMIT_REDIS_AUTH_TOKEN_SECRET_ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:redis",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER":      secret.srv.URL, "EDGELIMIT_REDIS_PREFIX": "el:t:rot:"}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Build(t.Context(), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Tenants.Create(t.Context(), storetest.Tenant("rot")); err != nil {
		t.Fatal(err)
	}
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 1000, "period": "1s"}`)
	keys := []string{storetest.Key(t, "k1"), storetest.Key(t, "k2"), storetest.Key(t, "k3")}
	decide := func(i int) error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond) // the production budget
		defer cancel()
		_, err := store.DecideOne(ctx, st.Counters, keys[i%len(keys)], set, limiter.Micros(time.Now()), 1)
		return err
	}
	for i := range keys {
		if err := decide(i); err != nil {
			t.Fatalf("before the rotation: %v", err)
		}
	}
	secret.set("the-new-redis-auth-token")
	rotateRedisPassword(t, srv.Addr, "the-old-redis-auth-token", "the-new-redis-auth-token")
	start, failed, row := time.Now(), 0, 0
	tick := time.NewTicker(20 * time.Millisecond) // requests keep arriving
	defer tick.Stop()
	for i := 0; row < 2*len(keys); i++ { // a killed connection fails once at its next use
		if err := decide(i); err == nil {
			row++
			continue
		} else if failed, row = failed+1, 0; time.Since(start) > 2*time.Second {
			t.Fatalf("still failing %v after the rotation (%d decisions failed): %v", time.Since(start), failed, err)
		}
		<-tick.C
	}
	t.Logf("%d decisions failed after the rotation; recovered within %v", failed, time.Since(start))
	if n := secret.count(); n != 2 {
		t.Errorf("%d secret reads, want 2: one at the start, one after the refusal", n)
	}
}

// fakeSecret is a Secrets Manager that answers GetSecretValue with its current value,
// and counts the calls.
type fakeSecret struct {
	srv   *httptest.Server
	mu    sync.Mutex
	value string
	reads int
}

func newFakeSecret(t *testing.T, value string) *fakeSecret {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	f := &fakeSecret{value: value}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		f.mu.Lock()
		f.reads++
		v := f.value
		f.mu.Unlock()
		io.WriteString(w, `{"SecretString": "`+v+`"}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSecret) set(v string) { f.mu.Lock(); defer f.mu.Unlock(); f.value = v }

func (f *fakeSecret) count() int { f.mu.Lock(); defer f.mu.Unlock(); return f.reads }

// rotateRedisPassword sets the server's requirepass from old to new and kills the
// other normal clients, so that theirs reconnect.
func rotateRedisPassword(t *testing.T, addr, old, new string) {
	t.Helper()
	admin, err := redis.NewClient(redis.Config{Addrs: []string{addr}, Password: old})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, cmd := range [][]string{{"CONFIG", "SET", "requirepass", new}, {"CLIENT", "KILL", "TYPE", "normal"}} {
		if err := admin.Do(t.Context(), func(b rueidis.Builder) rueidis.Completed {
			return b.Arbitrary(cmd...).Build()
		}).Error(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
}
