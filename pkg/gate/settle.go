package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// SettleStatus says what Settle did with a reservation.
type SettleStatus string

// The statuses of a settle. Only SettleSettled changed any counter.
const (
	SettleSettled        SettleStatus = "settled"         // the difference was charged or refunded
	SettleAlreadySettled SettleStatus = "already_settled" // an earlier settle of the same id did it
	SettleExpired        SettleStatus = "expired"         // past Reservation.Expires: the estimate stands
	SettleUnknown        SettleStatus = "unknown"         // malformed, forged or of another secret
	SettleRulesChanged   SettleStatus = "rules_changed"   // the tenant changed since: the estimate stands
	SettleOff            SettleStatus = "reservations_off"
)

// SettleResult is Settle's answer, shaped for the admin API's JSON.
type SettleResult struct {
	Status SettleStatus `json:"status"`
	// Reserved is the reservation's estimate and Actual the cost settled for it;
	// Reserved is 0 for an unknown reservation.
	Reserved int64 `json:"reserved"`
	Actual   int64 `json:"actual"`
	// TenantID and Route are the reservation's, when it could be opened.
	TenantID string `json:"tenant_id,omitempty"`
	Route    string `json:"route,omitempty"`
	// Expires is the reservation's expiry (µs since the Unix epoch), when known.
	Expires int64 `json:"expires,omitempty"`
}

// SettleTimeout bounds a Settle's store calls.
const SettleTimeout = 2 * time.Second

// ErrNoSettler is Settle's error when the counter store does not settle reservations
// (it does not implement store.Settler).
var ErrNoSettler = errors.New("gate: the counter store does not settle reservations")

// ErrSettleCost is wrapped by Settle's error for a cost outside 0 to tenant.MaxCost.
var ErrSettleCost = errors.New("gate: a settled cost must be 0 to 10^12")

// Settle settles the reservation id (a Result.Reservation's ID) at the request's real
// cost: the counters it reserved on are charged cost minus the estimate more, or
// refunded the difference (see limiter.Set.Settle for what each rule does), at most
// once per reservation. A malformed or forged id, an expired reservation, a second
// settle and a reservation of rules since changed change nothing, and the result
// says which (an error is for a bad cost, a store without store.Settler, or a store
// failure, none of which changes anything either). It loads the tenant through the
// gate's cache, as Check does.
func (g *Gate) Settle(ctx context.Context, id string, cost int64) (SettleResult, error) {
	if cost < 0 || cost > tenant.MaxCost {
		return SettleResult{}, fmt.Errorf("%w: %d", ErrSettleCost, cost)
	}
	if g.secret == nil {
		return SettleResult{Status: SettleOff, Actual: cost}, nil
	}
	c, err := open(g.secret, id)
	if err != nil {
		return SettleResult{Status: SettleUnknown, Actual: cost}, nil
	}
	res := SettleResult{Reserved: c.Cost, Actual: cost, TenantID: c.Tenant, Route: c.Route, Expires: c.Expires}
	now := g.now()
	if now >= c.Expires {
		res.Status = SettleExpired
		return res, nil
	}
	settler, ok := g.counters.(store.Settler)
	if !ok {
		return res, ErrNoSettler
	}
	ctx, cancel := context.WithTimeout(ctx, SettleTimeout)
	defer cancel()
	var buf [store.MaxCounters]store.Counter
	cs, ok, err := g.reservedCounters(ctx, c, now, buf[:0])
	if err != nil || !ok {
		res.Status = SettleRulesChanged
		return res, err
	}
	s := store.Settlement{ID: c.Nonce, At: c.At, Now: max(now, c.At), Expires: c.Expires, Delta: cost - c.Cost}
	applied, err := settler.Settle(ctx, cs, s)
	switch {
	case err != nil:
		return SettleResult{}, fmt.Errorf("gate: settling: %w", err)
	case applied:
		res.Status = SettleSettled
		g.forgetDenials(cs, c, s.Delta)
	default:
		res.Status = SettleAlreadySettled
	}
	return res, nil
}

// reservedCounters appends to dst the counters c reserved on, rebuilt from the tenant
// as the gate's cache has it now; ok is false when the tenant or the key is gone (a
// key purged; a key revoked is not gone: reservedKey) or the rules compiled for the
// request are not c's (the tenant's version, its plan's, its active overrides or the
// key's own rules changed, and so may its counters).
func (g *Gate) reservedCounters(ctx context.Context, c claims, now int64, dst []store.Counter) ([]store.Counter, bool, error) {
	var calls int
	t, err := g.configs.tenant(ctx, c.Tenant, now, &calls)
	if errors.Is(err, errNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("gate: settling: tenant store: %w", err)
	}
	if c.KeyHash != "" { // the key's own rules, compiled again as the decision had them
		rec, err := g.reservedKey(ctx, c, now, &calls)
		if errors.Is(err, errNotFound) {
			return nil, false, nil
		}
		if err == nil {
			t, err = g.configs.tenantOfKey(ctx, c.Tenant, rec, now, &calls)
		}
		if err != nil {
			return nil, false, fmt.Errorf("gate: settling: tenant store: %w", err)
		}
	}
	if t.rules != c.Version {
		return nil, false, nil
	}
	var route *tenant.RouteSet
	if c.Route != "" {
		if route, _ = t.sets.Match("", c.Route); route == nil || route.Route.Name() != c.Route {
			return nil, false, nil
		}
	}
	var buf [store.MaxCounters]tenant.Check
	for _, ch := range t.sets.Checks(buf[:0], route, tenant.Caller{KeyID: c.KeyID, Addr: c.Addr}) {
		dst = append(dst, store.Counter{Key: ch.Key, Set: ch.Set})
	}
	return dst, true, nil
}

// reservedKey returns the record of the key with rules of its own that c was decided
// for (c.KeyHash), to compile those rules again: as the gate's cache has it, or, once
// a lookup no longer finds the key (revoked since, which LookupKey answers as not
// found), as the tenant's key records still list it (KeyLister), until it is purged.
// A revoked key's reservations settle as any other: its requests in flight hold
// slots of the tenant's counters too. errNotFound: the key is gone, or the store
// lists no records.
func (g *Gate) reservedKey(ctx context.Context, c claims, now int64, calls *int) (apikey.Record, error) {
	rec, err := g.configs.key(ctx, c.KeyHash, now, calls)
	lister, ok := g.configs.store.(KeyLister)
	if !errors.Is(err, errNotFound) || !ok {
		return rec, err
	}
	*calls++
	recs, err := lister.ListKeys(ctx, c.Tenant)
	if err != nil {
		return apikey.Record{}, err // errNotFound included: the tenant is gone
	}
	for _, rec := range recs {
		if rec.KeyID == c.KeyID && rec.TenantID == c.Tenant && rec.Matches(c.KeyHash) {
			return rec, nil
		}
	}
	return apikey.Record{}, errNotFound
}

// forgetDenials drops this instance's cached denials of cs after a refund (delta < 0),
// which may have made them stale; other instances' expire at their retry instant.
// (Denials by a concurrency rule, which any settle may lift, are never cached.)
func (g *Gate) forgetDenials(cs []store.Counter, c claims, delta int64) {
	if delta >= 0 {
		return
	}
	for _, cnt := range cs {
		g.denials.forget(cnt.Key, c.Version)
	}
}
