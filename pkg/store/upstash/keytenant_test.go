package upstash

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/internal/luascript"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// TestGateRoundTrips counts the HTTP requests of a gate over the Upstash stores,
// sharing one client as the authorizer does: a request whose key is not cached makes
// 2 (its record and tenant in one script call, then the decision; LookupKey then Get
// made 3), whether its tenant is cached or not, and a request whose key is cached 1.
// A first request, with a key of another tenant, has run both scripts before the
// count, so the server's script cache is warm: a cold one adds an EVAL after each
// NOSCRIPT (TestStoreRoundTrips counts that). With and without key locking, which
// keytenant.lua is sent without.
func TestGateRoundTrips(t *testing.T) {
	for _, locking := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "key locking"}[locking], func(t *testing.T) {
			url, token := testenv.UpstashURL(t)
			ct := &testenv.CountingTransport{Next: http.DefaultTransport}
			c, err := upstashrest.NewClient(upstashrest.Config{URL: url, Token: token, KeyLocking: locking, HTTPClient: &http.Client{Transport: ct}})
			if err != nil {
				t.Fatal(err)
			}
			tenants := newTestTenantsOn(t, c)
			g, err := gate.New(gate.Config{Tenants: tenants, Counters: NewCounters(c, CountersConfig{}),
				Now: func() int64 { return 1_800_000_000_000_000 }})
			if err != nil {
				t.Fatal(err)
			}
			// Tenants of their own, so that no earlier run's counters count.
			warmID, id := "warm-"+strings.ToLower(rand.Text()), "gate-"+strings.ToLower(rand.Text())
			warm, key, second := putKey(t, tenants, warmID), putKey(t, tenants, id), putKey(t, tenants, id)
			check := func(key, tenantID string, wantRequests int64) {
				t.Helper()
				ct.Reset()
				res, err := g.Check(t.Context(), gate.Request{Method: "GET", Resource: "/", APIKey: key})
				if err != nil || res.Status != gate.Allowed || res.FailOpen || res.TenantID != tenantID {
					t.Fatalf("Check: %+v, %v; want allowed by %s", res, err, tenantID)
				}
				if n := ct.Reset(); wantRequests > 0 && n != wantRequests {
					t.Fatalf("%d HTTP requests (config calls %d, store calls %d), want %d", n, res.ConfigCalls, res.StoreCalls, wantRequests)
				}
			}
			check(warm, warmID, 0) // runs both scripts, whatever the script cache held
			check(key, id, 2)      // neither the key nor its tenant cached
			check(key, id, 1)
			check(second, id, 2) // the tenant cached, the key not
			check(second, id, 1)
		})
	}
}

// putKey creates the tenant tenantID unless it exists, and a key of it.
func putKey(t *testing.T, s *Tenants, tenantID string) string {
	t.Helper()
	if _, err := s.Create(t.Context(), storetest.Tenant(tenantID)); err != nil && !errors.Is(err, store.ErrExists) {
		t.Fatal(err)
	}
	k, rec := apikey.Generate(tenantID, 1_781_092_800_000_000)
	if err := s.PutKey(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return k.Reveal()
}

// keytenant.lua reads a key it cannot declare, so it must never be sent with
// allow-key-locking, which makes Upstash reject such a read.
func TestKeyTenantScriptHasNoKeyLocking(t *testing.T) {
	text := luascript.SharedScripts().KeyTenant.Text(true)
	if first, _, _ := strings.Cut(text, "\n"); text != luascript.SharedScripts().KeyTenant.Text(false) || first != "#!lua flags=no-writes" {
		t.Fatalf("keytenant.lua with key locking starts %q, want the source as written, its flags no-writes alone", first)
	}
}

// TestLookupKeyTenantReplies answers LookupKeyTenant's script from a fake server: an
// answer the script never gives is upstashrest.ErrMalformedReply after one request;
// a record whose tenant id the script could not read has its tenant read apart.
func TestLookupKeyTenantReplies(t *testing.T) {
	k, rec := apikey.Generate("acme", 1_781_092_800_000_000)
	doc, _ := json.Marshal(rec)
	tenantDoc, _ := json.Marshal(storetest.Tenant("acme"))
	for _, tc := range []struct {
		name     string
		script   []string // the script's answer; "" stands for the empty string
		requests int64
		check    func(apikey.Record, error) bool
	}{
		{"no record", []string{}, 1, notFound},
		{"two values", []string{string(doc), "acme"}, 1, func(_ apikey.Record, err error) bool { return isMalformed(err) }},
		{"five values", []string{string(doc), "acme", string(tenantDoc), "3", "x"}, 1, func(_ apikey.Record, err error) bool { return isMalformed(err) }},
		{"a record without a tenant id it read", []string{string(doc)}, 2, found},
		{"another tenant id than the record's", []string{string(doc), "other", string(tenantDoc), "3"}, 2, found},
		{"the tenant", []string{string(doc), "acme", string(tenantDoc), "3"}, 1, found},
		{"the tenant gone", []string{string(doc), "acme", "", ""}, 1, func(r apikey.Record, err error) bool { return r == rec && notFound(apikey.Record{}, err) }},
		{"a record of another hash", []string{strings.Replace(string(doc), rec.Hash, strings.Repeat("0", 64), 1), "acme", string(tenantDoc), "3"}, 1, notFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if r.URL.Path == "/pipeline" { // Get's HMGET
					io.WriteString(w, `[{"result":[`+b64(string(tenantDoc))+`,`+b64("3")+`]}]`)
					return
				}
				vals := make([]string, len(tc.script))
				for i, v := range tc.script {
					vals[i] = b64(v)
				}
				io.WriteString(w, `{"result":[`+strings.Join(vals, ",")+`]}`)
			}))
			t.Cleanup(srv.Close)
			ct := &testenv.CountingTransport{}
			c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: "t", HTTPClient: &http.Client{Transport: ct}})
			if err != nil {
				t.Fatal(err)
			}
			got, ten, err := NewTenants(c, TenantsConfig{}).LookupKeyTenant(context.Background(), k.Hash())
			if !tc.check(got, err) || (err == nil) != (ten.ID == "acme" && ten.Version == 3) {
				t.Fatalf("LookupKeyTenant = %+v, %+v, %v", got, ten, err)
			}
			if n := ct.Count(); n != tc.requests {
				t.Fatalf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

func b64(s string) string {
	b, _ := json.Marshal(base64.StdEncoding.EncodeToString([]byte(s)))
	return string(b)
}

func notFound(r apikey.Record, err error) bool {
	return r == apikey.Record{} && errors.Is(err, store.ErrNotFound)
}

func found(r apikey.Record, err error) bool { return err == nil && r.TenantID == "acme" }

// refusingConn is a TenantsConn whose server refuses keytenant.lua, as a server that
// forbids undeclared keys in scripts would; it counts the refusals.
type refusingConn struct {
	luascript.TenantsConn
	refused *int
}

func (c refusingConn) EvalStrings(ctx context.Context, script *luascript.Script, keys []string, args ...string) ([]string, error) {
	if script == luascript.SharedScripts().KeyTenant {
		*c.refused++
		return nil, &upstashrest.CommandError{Command: "EVALSHA", Message: "ERR script tried accessing undeclared key"}
	}
	return c.TenantsConn.EvalStrings(ctx, script, keys, args...)
}

// A server that refuses keytenant.lua with an ERR reply gets LookupKey then Get, which
// answer the same; the script is not sent again.
func TestLookupKeyTenantOnAServerThatRefusesTheScript(t *testing.T) {
	c := newClient(t)
	base := newTestTenantsOn(t, c) // its prefix, cleaned up after the test
	refused := 0
	s := luascript.NewTenantsWith(refusingConn{restConn{c}, &refused}, base.Layout(), "store/upstash")
	id := "refused-" + strings.ToLower(rand.Text())
	key := putKey(t, s, id)
	for range 2 {
		rec, tn, err := s.LookupKeyTenant(t.Context(), apikey.Hash(key))
		if err != nil || rec.TenantID != id || tn.ID != id {
			t.Fatalf("LookupKeyTenant: %+v, %+v, %v; want the key and tenant %s", rec, tn, err, id)
		}
	}
	if refused != 1 {
		t.Errorf("the script was sent %d times to a server that refuses it, want 1", refused)
	}
}
