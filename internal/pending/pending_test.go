package pending_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/internal/pending"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// result is an allowed decision with a reservation of estimate 1000 over one check of
// the rules given.
func result(t *testing.T, rules ...limiter.Rule) gate.Result {
	t.Helper()
	set, err := limiter.NewSet(rules, nil)
	if err != nil {
		t.Fatal(err)
	}
	return gate.Result{Status: gate.Allowed, Checks: []tenant.Check{{Set: set}}, Reservation: gate.Reservation{ID: "r", Cost: 1000}}
}

// TestCost: the cost reported wins (SetCost, then the header); without one, a
// reservation that holds a concurrency slot is settled at its estimate and one that
// holds none is not settled; a header that is not a cost is an error, and the estimate
// stands.
func TestCost(t *testing.T) {
	window := limiter.Rule{Name: "day", Algorithm: limiter.FixedWindow, Limit: 100000, Period: limiter.Calendar(limiter.Day)}
	inflight := limiter.Rule{Name: "inflight", Algorithm: limiter.Concurrency, Limit: 2}
	for _, tt := range []struct {
		name     string
		rules    []limiter.Rule
		setCost  int64 // -1: none
		header   string
		wantCost int64
		wantOK   bool
		wantErr  error
	}{
		{"SetCost wins over the header", []limiter.Rule{window}, 40, "4000", 40, true, nil},
		{"header", []limiter.Rule{window}, -1, " 4000 ", 4000, true, nil},
		{"nothing reported, no slot", []limiter.Rule{window}, -1, "", 1000, false, nil},
		{"nothing reported, a slot", []limiter.Rule{window, inflight}, -1, "", 1000, true, nil},
		{"a header that is not a cost, no slot", []limiter.Rule{window}, -1, "4k", 1000, false, headers.ErrSettleCost},
		{"a header that is not a cost, a slot", []limiter.Rule{inflight}, -1, "4k", 1000, true, headers.ErrSettleCost},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := pending.New(result(t, tt.rules...))
			if tt.setCost >= 0 {
				p.SetCost(tt.setCost)
			}
			if tt.header != "" {
				h := http.Header{}
				h.Set(headers.SettleCost, tt.header)
				p.TakeHeader(h)
				if len(h) != 0 {
					t.Errorf("TakeHeader left %v", h)
				}
			}
			cost, ok, err := p.Cost()
			if cost != tt.wantCost || ok != tt.wantOK || !errors.Is(err, tt.wantErr) {
				t.Errorf("Cost() = %d, %v, %v; want %d, %v, %v", cost, ok, err, tt.wantCost, tt.wantOK, tt.wantErr)
			}
		})
	}
}

// TestNewWithoutReservation: a decision without a reservation has nothing pending.
func TestNewWithoutReservation(t *testing.T) {
	if p := pending.New(gate.Result{Status: gate.Allowed}); p != nil {
		t.Errorf("New of a result without a reservation: %+v, want nil", p)
	}
}
