package gate

import (
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// MinReservationTTL is the shortest life of a reservation: it expires at the decision's
// instant plus the longer of this and the longest concurrency lease among its checks.
const MinReservationTTL = 15 * time.Minute

// Reservation is what an allowed request holds until it is settled: the estimate its
// decision counted (Cost), under an ID that only this gate's secret can make. Settle it
// with Gate.Settle and the request's real cost once that is known; a reservation never
// settled keeps its estimate. The zero Reservation (ID "") is none: a denial, a fail
// mode's answer, a shadow tenant's request over its limit, or a gate without a
// Config.ReservationSecret.
type Reservation struct {
	// ID is the sealed token (base64url): the tenant, route, caller, cost, instants
	// and a random nonce, with their HMAC-SHA256. It is not a secret, but it cannot be
	// forged, changed or guessed.
	ID string `json:"id"`
	// Cost is the estimate reserved.
	Cost int64 `json:"cost"`
	// Expires is when the reservation can no longer be settled (µs since the Unix epoch).
	Expires int64 `json:"expires"`
}

// reserve gives res, an allowed decision of who at cost, its reservation, when the gate
// has a secret.
func (g *Gate) reserve(res *Result, who caller, cost int64) {
	if g.secret == nil || res.Status != Allowed || !res.Decision.Allowed || res.FailOpen || res.Set == nil {
		return
	}
	expires := reservationExpiry(res.Checks, res.Now)
	c := claims{Tenant: who.tenant.t.ID, Version: who.tenant.rules, Route: res.Route,
		KeyID: who.who.KeyID, KeyHash: who.ownRules, Addr: who.who.Addr, Cost: cost, At: res.Now, Expires: expires, Nonce: newNonce()}
	res.Reservation = Reservation{ID: seal(g.secret, c), Cost: cost, Expires: expires}
}

// reservationExpiry is when a reservation over checks, decided at at, expires: at plus
// MinReservationTTL, or later when a concurrency slot it took expires later (its lease
// and quantum, limiter.Set.SlotExpiry).
func reservationExpiry(checks []tenant.Check, at int64) int64 {
	e := at + MinReservationTTL.Microseconds()
	for _, c := range checks {
		e = max(e, counterExpiry(c.Set, at))
	}
	return e
}

// counterExpiry is reservationExpiry for one counter's set.
func counterExpiry(set *limiter.Set, at int64) int64 {
	e := at + MinReservationTTL.Microseconds()
	for i := range set.Len() {
		e = max(e, set.SlotExpiry(i, at))
	}
	return e
}
