package admin

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// usageJSON is the body of GET /tenants/{id}/usage.
type usageJSON struct {
	TenantID   string `json:"tenant_id"`
	KeyID      string `json:"key_id,omitempty"`
	IP         string `json:"ip,omitempty"` // as limited: the IPv4 address or the IPv6 /64
	Generation int64  `json:"generation"`
	Timezone   string `json:"timezone"`
	At         string `json:"at"`
	AtLocal    string `json:"at_local"`
	// Rules holds the tenant-wide rules, then each route's, in the tenant's order, by
	// scope (tenant, key, ip) within each; each rule's JSON carries its scope.
	Rules   []ruleUsage   `json:"rules"`
	Pending []pendingZone `json:"pending_zone_changes"`
}

// ruleUsage is one rule's state for the identity, as a request would find it now.
type ruleUsage struct {
	Route       *string      `json:"route"` // the route's name; null for tenant-wide rules
	Rule        limiter.Rule `json:"rule"`
	Capacity    int64        `json:"capacity"`
	Used        int64        `json:"used"`
	Remaining   int64        `json:"remaining"`
	Reset       string       `json:"reset"`
	ResetLocal  string       `json:"reset_local,omitempty"`
	WindowStart string       `json:"window_start,omitempty"`
	WindowEnd   string       `json:"window_end,omitempty"`
}

// pendingZone is a change of time zone not yet in effect for one calendar unit.
type pendingZone struct {
	Unit           string `json:"unit"`
	Timezone       string `json:"timezone"`
	Effective      string `json:"effective"`
	EffectiveLocal string `json:"effective_local"`
}

// identity is whom usage reports on: a key, a client address, both or neither.
type identity struct {
	keyID, ip string
	keyRules  []limiter.Rule // the key's own rules (apikey.Record.Rules), if it has any
}

// usage answers GET /tenants/{id}/usage[?key_id=][&ip=]: what each rule has counted,
// read with the counter store's Peek (nothing is consumed), for the rules the tenant
// is limited by now (its plan's, its own, key_id's own and its active overrides':
// EffectiveFor). Tenant-scope rules are always reported; key-scope rules for key_id
// (or, for a request without a key, ip); ip-scope rules for ip.
func (h *Handler) usage(w http.ResponseWriter, r *http.Request, p params) error {
	t, err := h.loadTenant(r.Context(), p.id)
	if err != nil {
		return err
	}
	who, err := h.usageIdentity(r.Context(), t.ID, p.query)
	if err != nil {
		return err
	}
	now := h.now()
	if t, err = h.effective(r.Context(), t, who.keyRules, now); err != nil {
		return err
	}
	sets, err := t.Sets()
	if err != nil {
		return validationError(err)
	}
	zone, _ := t.Zone() // Sets succeeded, so the zone loads
	loc := zone.Location()
	out := usageJSON{TenantID: t.ID, KeyID: who.keyID, IP: who.ip, Generation: t.Generation,
		Timezone: loc.String(), At: formatTime(now), AtLocal: formatLocal(now, loc), Pending: pending(t, now), Rules: []ruleUsage{}}
	for _, c := range usageChecks(sets, who) {
		var outs [limiter.MaxRules]limiter.Outcome
		if _, err := h.counters.Peek(r.Context(), c.Key, c.Set, now, outs[:c.Set.Len()]); err != nil {
			return &apiError{slug: problemUnavailable, cause: err, detail: "the counter store failed"}
		}
		for i := range c.Set.Len() {
			out.Rules = append(out.Rules, ruleUsageOf(c, i, outs[i], now, loc))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// usageIdentity reads key_id (a key of the tenant, revoked or not, with its own rules)
// and ip, both optional.
func (h *Handler) usageIdentity(ctx context.Context, tenantID string, q map[string]string) (identity, error) {
	who := identity{keyID: q["key_id"]}
	if ip := q["ip"]; ip != "" {
		norm, ok := tenant.ClientAddress(ip)
		if !ok {
			return identity{}, paramError("ip", ip, "must be an IPv4 or IPv6 address")
		}
		who.ip = norm
	}
	if who.keyID == "" {
		return who, nil
	}
	if !apikey.ValidKeyID(who.keyID) {
		return identity{}, paramError("key_id", who.keyID, "must be a key id: 8 lowercase letters or digits, as GET /tenants/{id}/keys lists them")
	}
	rec, err := h.findKey(ctx, tenantID, who.keyID)
	if err != nil {
		return identity{}, err
	}
	who.keyRules = rec.Rules
	return who, nil
}

// usageChecks lists the counters the authorizer decides for who, under the same
// counter keys (tenant.Sets.Checks): the tenant-wide rules, then each route's, leaving
// out the scopes whose identity who lacks. An address alone (no key) reaches the
// anonymous routes only.
func usageChecks(sets *tenant.Sets, who identity) []tenant.Check {
	caller := tenant.Caller{KeyID: who.keyID, Addr: who.ip}
	all := sets.Checks(nil, nil, caller)
	for i := range sets.Routes {
		rs := &sets.Routes[i]
		if who.keyID == "" && who.ip != "" && !rs.Route.Anonymous {
			continue
		}
		all = sets.RouteChecks(all, rs, caller)
	}
	return slices.DeleteFunc(all, func(c tenant.Check) bool {
		return c.Scope == limiter.ScopeKey && who.keyID == "" && who.ip == "" || c.Scope == limiter.ScopeIP && who.ip == ""
	})
}

// ruleUsageOf reports rule i of check c from its peeked outcome o.
func ruleUsageOf(c tenant.Check, i int, o limiter.Outcome, now int64, loc *time.Location) ruleUsage {
	rule := c.Set.Rule(i)
	u := ruleUsage{Rule: rule, Capacity: rule.Capacity(), Remaining: o.Remaining,
		Used: max(rule.Capacity()-o.Remaining, 0)}
	if c.Route != "" {
		u.Route = new(c.Route)
	}
	reset := o.Reset
	if start, end := c.Set.Window(i, now); end != 0 {
		u.WindowStart, u.WindowEnd = formatTime(start), formatTime(end)
		if rule.Algorithm == limiter.FixedWindow {
			reset = end // a fixed window's count starts afresh at its end
		}
	}
	u.Reset = formatTime(reset)
	if rule.Period.IsCalendar() {
		u.ResetLocal = formatLocal(reset, loc)
	}
	return u
}

// pending lists, per calendar unit that a rule of the tenant uses, a change of time
// zone not yet in effect at now.
func pending(t tenant.Tenant, now int64) []pendingZone {
	out := []pendingZone{}
	for _, u := range calendarUnits(t) {
		zone, effective, ok := t.PendingZone(u, now)
		if !ok {
			continue
		}
		loc, err := tenant.LoadLocation(zone)
		if err != nil {
			loc = time.UTC // cannot happen: the tenant's zones load
		}
		out = append(out, pendingZone{Unit: u.String(), Timezone: zone,
			Effective: formatTime(effective), EffectiveLocal: formatLocal(effective, loc)})
	}
	return out
}

// calendarUnits returns the calendar units of the tenant's rules and its routes' rules,
// in the order day, week, month.
func calendarUnits(t tenant.Tenant) []limiter.Unit {
	rules := slices.Clone(t.Rules)
	for _, r := range t.Routes {
		rules = append(rules, r.Rules...)
	}
	return slices.DeleteFunc([]limiter.Unit{limiter.Day, limiter.Week, limiter.Month}, func(u limiter.Unit) bool {
		return !slices.ContainsFunc(rules, func(r limiter.Rule) bool { return r.Period.Unit() == u })
	})
}

// formatTime renders microseconds since the Unix epoch as RFC 3339 in UTC.
func formatTime(us int64) string { return time.UnixMicro(us).UTC().Format(time.RFC3339Nano) }

// formatLocal renders microseconds since the Unix epoch as RFC 3339 in loc.
func formatLocal(us int64, loc *time.Location) string {
	return time.UnixMicro(us).In(loc).Format(time.RFC3339Nano)
}
