package pending

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Reservation is an allowed request's reservation and the cost reported for it. Its
// methods are safe for concurrent use; New makes one.
type Reservation struct {
	// Res is the gate's reservation of the request.
	Res gate.Reservation
	// slot is set when the decision took a concurrency slot, which only a settle frees
	// before its lease ends.
	slot bool

	mu     sync.Mutex
	cost   int64
	set    bool
	header string // headers.SettleCost's value, when the response carried one
}

// New returns the pending reservation of res, an allowed Check's result; nil when res
// carries no reservation.
func New(res gate.Result) *Reservation {
	if res.Reservation.ID == "" {
		return nil
	}
	return &Reservation{Res: res.Reservation, slot: holdsSlot(res)}
}

// holdsSlot reports whether res's decision took a concurrency slot: whether one of its
// checks has a concurrency rule.
func holdsSlot(res gate.Result) bool {
	for _, c := range res.Checks {
		for i := range c.Set.Len() {
			if c.Set.Rule(i).Algorithm == limiter.Concurrency {
				return true
			}
		}
	}
	return false
}

// SetCost records the request's real cost; it wins over a header.
func (p *Reservation) SetCost(cost int64) {
	p.mu.Lock()
	p.cost, p.set = cost, true
	p.mu.Unlock()
}

// TakeHeader removes headers.SettleCost from h and records its first value.
func (p *Reservation) TakeHeader(h http.Header) {
	if vs := h.Values(headers.SettleCost); len(vs) > 0 {
		h.Del(headers.SettleCost)
		p.Record(vs[0])
	}
}

// Record records v, a headers.SettleCost value.
func (p *Reservation) Record(v string) {
	p.mu.Lock()
	p.header = v
	p.mu.Unlock()
}

// Cost returns the cost to settle the reservation at, once the request is over:
// SetCost's, else the header's, else the estimate. ok is false when there is nothing
// to settle: no cost was reported and no concurrency slot is held, so the estimate
// stands without a store call. err (wrapping headers.ErrSettleCost) is for a header
// that is not a cost: the estimate stands, and ok says whether to settle at it.
func (p *Reservation) Cost() (cost int64, ok bool, err error) {
	p.mu.Lock()
	cost, set, header := p.cost, p.set, p.header
	p.mu.Unlock()
	switch {
	case set:
		return cost, true, nil
	case header == "":
		return p.Res.Cost, p.slot, nil
	}
	if cost, err = headers.ParseSettleCost(header); err != nil {
		return p.Res.Cost, p.slot, fmt.Errorf("%w: %q", err, header)
	}
	return cost, true, nil
}
