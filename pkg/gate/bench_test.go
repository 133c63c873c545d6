package gate_test

import (
	"context"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// BenchmarkCheck is the warm path of an allowed request on the memory backend: key
// and tenant cached, one Decide.
func BenchmarkCheck(b *testing.B) {
	f := newFixture(b, nil)
	f.createTenant(b, `{"id": "bench", "rules": [{"name": "burst", "algorithm": "token_bucket", "limit": 1000000, "period": "1s"}]}`)
	key, _ := f.addKey(b, "bench")
	req := gate.Request{Method: "GET", Resource: "/", APIKey: key}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		f.clock.add(1)
		if res, err := f.g.Check(ctx, req); err != nil || res.Status != gate.Allowed {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkCheckDenied is a request answered by the denial cache.
func BenchmarkCheckDenied(b *testing.B) {
	f := newFixture(b, nil)
	req := gate.Request{Method: "GET", Resource: "/", APIKey: f.key}
	ctx := context.Background()
	for range 6 {
		f.check(b, req)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := f.g.Check(ctx, req); !res.Cached {
			b.Fatalf("%+v", res)
		}
	}
}
