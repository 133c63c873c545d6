package gate_test

import (
	"context"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// readOnly offers the gate nothing but the two reads gate.Tenants names.
type readOnly struct{ s *memory.Tenants }

func (r readOnly) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	return r.s.LookupKey(ctx, hash)
}

func (r readOnly) Get(ctx context.Context, id string) (tenant.Tenant, error) { return r.s.Get(ctx, id) }

// The gate asks for the reads it makes and no more: a store of two methods serves it.
func TestGateNeedsOnlyTwoReads(t *testing.T) {
	f := newFixture(t, nil)
	g, err := gate.New(gate.Config{Tenants: readOnly{f.tenants}, Counters: f.counters, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Check(t.Context(), gate.Request{APIKey: f.key, Method: "GET", Resource: "/x"})
	if err != nil || res.Status != gate.Allowed || res.TenantID != "acme" {
		t.Fatalf("Check through a two-method store: %+v, %v", res, err)
	}
}
