package main_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/redis"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
)

var eventsDir = filepath.Join("..", "..", "events", "authorizer")

func readEvent(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(eventsDir, name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func suffix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// seed loads the events' tenants file into s.
func seed(tb testing.TB, s store.Tenants) {
	tb.Helper()
	f, err := store.ReadFile(filepath.Join(eventsDir, "tenants.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.Load(testCtx(tb), s); err != nil {
		tb.Fatal(err)
	}
}

// The environment of each backend, its tenant store seeded with the events' tenants,
// and the tag of the authorizer build the template deploys for it (memory: none, every
// backend, as `go build` and `edgelimit dev` have it).
var backends = []struct {
	name, tag string
	env       func(t *testing.T) map[string]string
}{
	{"memory", "", func(t *testing.T) map[string]string {
		abs, err := filepath.Abs(filepath.Join(eventsDir, "tenants.json"))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]string{"EDGELIMIT_BACKEND": "memory", "EDGELIMIT_TENANTS_FILE": abs}
	}},
	{"dynamodb", "edgelimit.dynamodb", dynamoDBEnv},
	{"upstash", "edgelimit.upstash", upstashEnv},
	{"redis", "edgelimit.redis", redisEnv},
}

func dynamoDBEnv(t *testing.T) map[string]string {
	endpoint := testenv.DynamoDBURL(t)
	client := testenv.DynamoDBLocal(endpoint, "local") // -sharedDb: one database
	tenants, counters := "e2e-tenants-"+suffix(), "e2e-counters-"+suffix()
	if err := dynamodb.CreateTable(testCtx(t), client, tenants, dynamodb.TenantsTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := dynamodb.CreateTable(testCtx(t), client, counters, dynamodb.CountersTable, time.Minute); err != nil {
		t.Fatal(err)
	}
	seed(t, dynamodb.NewTenants(client, tenants))
	return map[string]string{"EDGELIMIT_BACKEND": "dynamodb", "EDGELIMIT_TENANTS_TABLE": tenants,
		"EDGELIMIT_COUNTERS_TABLE": counters, "AWS_ENDPOINT_URL_DYNAMODB": endpoint}
}

func upstashEnv(t *testing.T) map[string]string {
	base, token := testenv.UpstashURL(t)
	if _, err := url.Parse(base); err != nil {
		t.Fatal(err)
	}
	client, err := upstashrest.NewClient(upstashrest.Config{URL: base, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	prefix := "e2e-" + suffix() + ":"
	seed(t, upstash.NewTenants(client, upstash.TenantsConfig{Prefix: prefix}))
	return map[string]string{"EDGELIMIT_BACKEND": "upstash", "UPSTASH_REDIS_REST_URL": base,
		"UPSTASH_REDIS_REST_TOKEN": token, "EDGELIMIT_UPSTASH_PREFIX": prefix}
}

func redisEnv(t *testing.T) map[string]string {
	addr := testenv.RedisAddr(t)
	client, err := redis.NewClient(redis.Config{Addrs: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	prefix := "e2e-" + suffix() + ":"
	tenants, err := redis.NewTenants(client, redis.TenantsConfig{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	seed(t, tenants)
	return map[string]string{"EDGELIMIT_BACKEND": "redis", "EDGELIMIT_REDIS_ADDR": addr, "EDGELIMIT_REDIS_PREFIX": prefix}
}

// reply is a REST or HTTP authorizer reply, or the error Lambda reports.
type reply struct {
	PolicyDocument *struct{ Statement []struct{ Effect string } } `json:"policyDocument"`
	IsAuthorized   *bool                                          `json:"isAuthorized"`
	Context        map[string]any                                 `json:"context"`
	ErrorMessage   string                                         `json:"errorMessage"`
}

func (r reply) effect() string {
	if r.PolicyDocument == nil || len(r.PolicyDocument.Statement) != 1 {
		return ""
	}
	return r.PolicyDocument.Statement[0].Effect
}

func (f *function) call(tb testing.TB, payload []byte) reply {
	tb.Helper()
	body, _ := f.invoke(tb, payload)
	var r reply
	if err := json.Unmarshal(body, &r); err != nil {
		tb.Fatalf("reply %s: %v", body, err)
	}
	return r
}

// The real bootstrap under the emulator, on each backend: the sample events get their
// answers (a TOKEN event's token is demo's key: Allow; another TOKEN event's an unknown
// key: Unauthorized), demo's key is allowed until its burst of 5 is spent, then denied with
// retryAfter, and allowed again once the retry time has passed (polling, at most 5 s).
func TestEndToEnd(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			bootstrap := build(t, ".", b.tag)
			env := b.env(t)
			env["EDGELIMIT_ANONYMOUS_TENANT"] = "public"
			env["EDGELIMIT_LATENCY_BUDGET"] = "2s" // a loaded machine must not fail closed here
			fn := startFunction(t, bootstrap, env)
			checkSampleEvents(t, fn)
			checkAllowDenyAllow(t, fn, readEvent(t, "rest-valid-key"))
		})
	}
}

func checkSampleEvents(t *testing.T, fn *function) {
	t.Helper()
	if r := fn.call(t, readEvent(t, "rest-unknown-key")); r.ErrorMessage != "Unauthorized" {
		t.Errorf("unknown key: %+v, want Unauthorized", r)
	}
	if r := fn.call(t, readEvent(t, "http-missing-key")); r.ErrorMessage != "Unauthorized" {
		t.Errorf("missing key: %+v, want Unauthorized", r)
	}
	if r := fn.call(t, readEvent(t, "http-anonymous-route")); r.IsAuthorized == nil || !*r.IsAuthorized || r.Context["tenantId"] != "public" {
		t.Errorf("anonymous route: %+v", r)
	}
	if r := fn.call(t, readEvent(t, "rest-token")); r.effect() != "Allow" || r.Context["tenantId"] != "demo" || r.Context["rule"] != "burst" {
		t.Errorf("TOKEN event: %+v, want demo's Allow", r)
	}
	if r := fn.call(t, readEvent(t, "rest-token-unknown-key")); r.ErrorMessage != "Unauthorized" {
		t.Errorf("TOKEN event of an unknown key: %+v, want Unauthorized", r)
	}
}

func checkAllowDenyAllow(t *testing.T, fn *function, payload []byte) {
	t.Helper()
	var denied reply
	for i := range 20 {
		r := fn.call(t, payload)
		if r.effect() == "Deny" {
			denied = r
			t.Logf("denied after %d allowed", i)
			break
		}
		if r.effect() != "Allow" || r.Context["tenantId"] != "demo" {
			t.Fatalf("request %d: %+v", i+1, r)
		}
	}
	if denied.effect() != "Deny" {
		t.Fatal("20 requests and no denial: demo's burst is 5")
	}
	retry, _ := denied.Context["retryAfter"].(float64)
	if retry < 1 || denied.Context["remaining"] != 0.0 || denied.Context["rule"] != "burst" {
		t.Fatalf("denial context %v, want retryAfter >= 1 and remaining 0", denied.Context)
	}
	deniedAt := time.Now()
	waitFor(t, 5*time.Second, "an Allow after the retry time", func() bool { return fn.call(t, payload).effect() == "Allow" })
	if waited := time.Since(deniedAt); waited > time.Duration(retry)*time.Second+time.Second {
		t.Errorf("allowed again after %v, want within retryAfter (%vs)", waited, retry)
	}
}

// The two keys of tenant org share its daily quota of 5, end to end on every backend:
// whichever key spends it, the 6th request of the day is denied by "daily" for both.
func TestKeysShareTheTenantQuota(t *testing.T) {
	keys := []string{"elk_l4n4y5ih_yQoBhxNrx0rEmIlEr_YewI-NDLl2oys9EEIWz-C2_6M", "elk_px5ywdqf_l_c_QWM7nuLy2lSa1veHjYynBQ1ryFcTzbHla7CxJZc"}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			env["EDGELIMIT_LATENCY_BUDGET"] = "2s"
			fn := startFunction(t, build(t, ".", b.tag), env)
			event := func(key string) []byte {
				var ev map[string]any
				if err := json.Unmarshal(readEvent(t, "rest-valid-key"), &ev); err != nil {
					t.Fatal(err)
				}
				ev["headers"].(map[string]any)["X-Api-Key"] = key
				out, _ := json.Marshal(ev)
				return out
			}
			var first reply
			for i := range 5 {
				r := fn.call(t, event(keys[i%2]))
				if r.effect() != "Allow" || r.Context["tenantId"] != "org" {
					t.Fatalf("request %d of 5, key %d: %+v", i+1, i%2, r)
				}
				if i == 0 {
					first = r
				} else if r.Context["reset"] != first.Context["reset"] && r.Context["rule"] == "daily" {
					t.Skip("the test straddled a Tokyo midnight: its day changed")
				}
			}
			for k, key := range keys {
				if r := fn.call(t, event(key)); r.effect() != "Deny" || r.Context["rule"] != "daily" {
					t.Fatalf("key %d after 5 requests of the tenant: %+v, want denied by daily", k, r)
				}
			}
		})
	}
}

// A store that is down at the cold start does not fail it: the warm-up's failure is
// logged, the function starts, and its first decision fails over by the fail mode
// (closed: Deny, marked failClosed).
func TestColdStartWithTheStoreDown(t *testing.T) {
	bootstrap := build(t, ".", "edgelimit.upstash")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	fn := startFunction(t, bootstrap, map[string]string{"EDGELIMIT_BACKEND": "upstash",
		"UPSTASH_REDIS_REST_URL": down, "UPSTASH_REDIS_REST_TOKEN": "token"})
	if r := fn.call(t, readEvent(t, "rest-valid-key")); r.effect() != "Deny" || r.Context["failClosed"] != true {
		t.Fatalf("first decision with the store down: %+v, want the fail mode's Deny", r)
	}
	if out := fn.Output(); !strings.Contains(out, "store warm-up failed") {
		t.Errorf("no warm-up failure in the function's output:\n%s", out)
	}
}
