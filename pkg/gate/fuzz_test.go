package gate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// FuzzCheck feeds arbitrary identities to the gate: it never panics, never returns an
// error for a cost of 1, and never puts the key in its reason.
func FuzzCheck(f *testing.F) {
	fx := newFixture(f, func(c *gate.Config) { c.AnonymousTenant = "public" })
	f.Add("GET", "/health", "", "192.0.2.1")
	f.Add("", "GET /health", "", "2001:db8::1")
	f.Add("POST", "/orders", fx.key, "")
	f.Add("get", "/x", "elk_aaaaaaaa_"+strings.Repeat("A", 43), "::ffff:10.0.0.1")
	f.Add("GET", "$default", "elk_", "fe80::1%eth0")
	f.Fuzz(func(t *testing.T, method, resource, key, ip string) {
		res, err := fx.g.Check(context.Background(), gate.Request{Method: method, Resource: resource, APIKey: key, SourceIP: ip})
		if err != nil {
			t.Fatalf("error %v", err)
		}
		if res.Status < gate.Allowed || res.Status > gate.Unauthorized {
			t.Fatalf("status %d", res.Status)
		}
		if len(key) >= 8 && strings.Contains(res.Reason+res.Identity, key) {
			t.Fatalf("the result holds the key: %+v", res)
		}
	})
}
