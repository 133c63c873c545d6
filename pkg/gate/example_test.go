package gate_test

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// A Lambda integration that reaches the store itself reserves the route's estimate
// with Check and settles the real cost with Settle once its response is done.
func ExampleGate_Settle() {
	ctx := context.Background()
	tenants := memory.NewTenants()
	tn, _ := tenant.Decode([]byte(`{"id": "llm",
	  "rules": [{"name": "tokens", "algorithm": "fixed_window", "limit": 100000, "period": "1m"}],
	  "routes": [{"method": "POST", "resource": "/chat", "cost": 1000,
	    "rules": [{"name": "chat", "algorithm": "fixed_window", "limit": 1000000, "period": "1m"}]}]}`))
	tenants.Create(ctx, tn)
	now := limiter.Micros(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	key, rec := apikey.Generate("llm", now)
	tenants.PutKey(ctx, rec)
	g, _ := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}),
		Now: func() int64 { return now }, ReservationSecret: bytes.Repeat([]byte{7}, gate.MinSecretBytes)})

	res, _ := g.Check(ctx, gate.Request{APIKey: key.Reveal(), Method: "POST", Resource: "/chat"})
	fmt.Println(res.Status, "reserved", res.Reservation.Cost, "remaining", res.Decision.Remaining)

	// ... the response is generated: it used 4,000 tokens.
	settled, _ := g.Settle(ctx, res.Reservation.ID, 4000)
	fmt.Println(settled.Status, settled.Reserved, "->", settled.Actual)
	again, _ := g.Settle(ctx, res.Reservation.ID, 4000)
	fmt.Println(again.Status)

	next, _ := g.Check(ctx, gate.Request{APIKey: key.Reveal(), Method: "POST", Resource: "/chat"})
	fmt.Println("remaining", next.Decision.Remaining)
	// Output:
	// allowed reserved 1000 remaining 99000
	// settled 1000 -> 4000
	// already_settled
	// remaining 95000
}
