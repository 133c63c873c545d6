package gate_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// The model's routes: a keyed one, an anonymous one, and a resource no route names.
const (
	modelKeyed, modelPublic, modelNone = "/a", "/pub", "/other"
)

// reference is TestModel's model of one tenant: its rules, keys and counters, each
// counter decided by pkg/limiter alone. A counter is named by what it counts, not by a
// counter key: the tenant's creation (epoch, bumped by resets too), the route, the
// scope and who. Its states are kept by rule state id, so that a rule change keeps the
// state of the rules it keeps, as stores do. (Generated rule changes never bring a
// removed state id back.) The tenant's time zone is kept with its whole history of
// changes since the tenant was created, which limiter.NewZone replays as the tenant's
// pruned history does (docs/design.md, "Time zones").
//
// hot is for a gate over hot counters: limits are 8 times higher (so that leases hold
// more than a unit), only allowed requests are decided (see modelRun.checkHot), and
// bucket rules get the lease's worth of extra burst (hotRule).
type reference struct {
	rules, keyed, public []limiter.Rule
	epoch                int
	names                int // rule names given so far: new rules get new names
	keys                 []*refKey
	counters             map[refCounter]map[string]limiter.State
	hot                  bool
	zone, base           string // the tenant's time zone now, and when it was created
	changes              []limiter.ZoneChange
}

type refKey struct {
	raw, id string
	live    bool
}

type refCounter struct {
	epoch int
	route string
	scope limiter.Scope
	who   string
}

var modelAddrs = []string{"192.0.2.1", "192.0.2.2", "2001:db8::1"}

// modelZones are the time zones tenants are created in and changed to: whole and half
// hours off UTC, either side, with and without daylight saving time.
var modelZones = []string{"UTC", "Europe/Paris", "Europe/London", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"}

// maxModelZoneChanges bounds the changes of zone made to one tenant, below
// tenant.MaxZoneChanges (changes still taking effect) whatever the clock does.
const maxModelZoneChanges = 8

func newReference(rng *rand.Rand, hot bool) *reference {
	r := &reference{counters: map[refCounter]map[string]limiter.State{}, hot: hot, zone: modelZones[rng.IntN(len(modelZones))]}
	r.newRules(rng)
	return r
}

// changeZone changes the time zone at now to another one and reports whether it did
// (not past maxModelZoneChanges).
func (r *reference) changeZone(rng *rand.Rand, now int64) bool {
	if len(r.changes) == maxModelZoneChanges {
		return false
	}
	to := modelZones[rng.IntN(len(modelZones))]
	if to == r.zone {
		return false
	}
	r.changes = append(r.changes, limiter.ZoneChange{At: now, Loc: modelLocation(to)})
	r.zone = to
	return true
}

// limiterZone is the tenant's zone with its history.
func (r *reference) limiterZone() *limiter.Zone {
	z, err := limiter.NewZone(modelLocation(r.base), r.changes...)
	if err != nil {
		panic(err) // changes are made in order of time
	}
	return z
}

func modelLocation(name string) *time.Location {
	loc, err := tenant.LoadLocation(name)
	if err != nil {
		panic(err) // modelZones are in the embedded database
	}
	return loc
}

// newRules changes the rules: raises one rule's limit (a bucket's state id changes
// with it; others keep their state), or draws every list afresh under new names.
func (r *reference) newRules(rng *rand.Rand) {
	if r.rules != nil && rng.IntN(2) == 0 {
		lists := [][]limiter.Rule{r.rules, r.keyed, r.public}
		l := lists[rng.IntN(3)]
		l[rng.IntN(len(l))].Limit++
		return
	}
	all := []limiter.Scope{limiter.ScopeTenant, limiter.ScopeKey, limiter.ScopeIP}
	r.rules = r.draw(rng, all)
	r.keyed = r.draw(rng, all)
	r.public = r.draw(rng, all[:1:1])
	r.public = append(r.public, r.draw(rng, []limiter.Scope{limiter.ScopeIP})...)
}

var modelAlgorithms = []limiter.Algorithm{limiter.FixedWindow, limiter.SlidingLog, limiter.SlidingWindow, limiter.TokenBucket, limiter.LeakyBucket, limiter.Concurrency}

var modelPeriods = []time.Duration{time.Second, 2 * time.Second, 10 * time.Second, time.Minute}

// modelLeases are the concurrency rules' leases.
var modelLeases = []time.Duration{time.Second, 16 * time.Second, time.Minute}

// draw returns 1 to 3 rules of every algorithm and of the scopes given; a third of
// the fixed windows are calendar days or weeks.
func (r *reference) draw(rng *rand.Rand, scopes []limiter.Scope) []limiter.Rule {
	out := make([]limiter.Rule, 1+rng.IntN(3))
	for i := range out {
		r.names++
		rule := limiter.Rule{Name: fmt.Sprintf("r%d", r.names), Algorithm: modelAlgorithms[rng.IntN(len(modelAlgorithms))],
			Limit: 3 + rng.Int64N(6), Period: limiter.Every(modelPeriods[rng.IntN(len(modelPeriods))]), Scope: scopes[rng.IntN(len(scopes))]}
		if rule.Algorithm == limiter.Concurrency { // a lease instead of a period: slots freed after it
			rule.Period, rule.Lease = limiter.Period{}, limiter.Every(modelLeases[rng.IntN(len(modelLeases))])
		}
		if rule.Algorithm == limiter.FixedWindow && rng.IntN(3) == 0 {
			rule.Period = limiter.Calendar([]limiter.Unit{limiter.Day, limiter.Week}[rng.IntN(2)])
		}
		if r.hot {
			rule.Limit *= 8
		}
		out[i] = rule
	}
	return out
}

// hotRules returns rules with each token bucket's burst raised by the most a lease
// of their set holds: the cost (at most 2) plus what hotcounter adds to it, a tenth of
// the least capacity (at least 1), and never more than that capacity. A bucket may
// exceed its burst by the units leased and spent later (docs/backends.md, "Bounds").
func hotRules(rules []limiter.Rule) []limiter.Rule {
	least := rules[0].Capacity()
	for _, rule := range rules {
		least = min(least, rule.Capacity())
	}
	lease := min(2+max(least/10, 1), least)
	out := make([]limiter.Rule, len(rules))
	for i, rule := range rules {
		if rule.Algorithm == limiter.TokenBucket {
			rule.Burst = rule.Capacity() + lease
		}
		out[i] = rule
	}
	return out
}

// json is the tenant id with the reference's rules, as the admin API takes it; on a
// plan (plan is its id), the tenant names the plan, which holds the rules (planJSON).
func (r *reference) json(id, plan string) string {
	if plan != "" {
		b, _ := json.Marshal(map[string]any{"id": id, "timezone": r.zone, "plan": plan})
		return string(b)
	}
	b, _ := json.Marshal(map[string]any{"id": id, "timezone": r.zone, "rules": r.rules, "routes": r.routes()})
	return string(b)
}

// planJSON is the reference's rules and routes as a plan, as PUT /plans/{id} takes it.
func (r *reference) planJSON() string {
	b, _ := json.Marshal(map[string]any{"rules": r.rules, "routes": r.routes()})
	return string(b)
}

// modelRoute is a route as the admin API takes it.
type modelRoute struct {
	Method    string         `json:"method"`
	Resource  string         `json:"resource"`
	Rules     []limiter.Rule `json:"rules"`
	Anonymous bool           `json:"anonymous,omitempty"`
}

func (r *reference) routes() []modelRoute {
	return []modelRoute{{"GET", modelKeyed, r.keyed, false}, {"GET", modelPublic, r.public, true}}
}

// recreated records that the tenant was created (again): new counters, and the old
// keys are gone (their records with the tenant), though traffic still sends them, and
// the zone has no history.
func (r *reference) recreated() {
	r.epoch++
	r.base, r.changes = r.zone, nil
	for _, k := range r.keys {
		k.live = false
	}
}

func (r *reference) addr(rng *rand.Rand) string { return modelAddrs[rng.IntN(len(modelAddrs))] }

// someKey returns a live key, when there is one.
func (r *reference) someKey(rng *rand.Rand) (*refKey, bool) {
	var live []*refKey
	for _, k := range r.keys {
		if k.live {
			live = append(live, k)
		}
	}
	if len(live) == 0 {
		return nil, false
	}
	return live[rng.IntN(len(live))], true
}

// request draws a request: a route (or none), a key (any, revoked and deleted ones
// included) or none, an address and a cost.
func (r *reference) request(rng *rand.Rand) gate.Request {
	req := gate.Request{Method: "GET", Resource: []string{modelKeyed, modelPublic, modelNone}[rng.IntN(3)],
		SourceIP: r.addr(rng), Cost: 1 + rng.Int64N(2)}
	if rng.IntN(4) > 0 {
		req.APIKey = r.keys[rng.IntN(len(r.keys))].raw
	}
	return req
}

// decide is the reference's answer to req at now: Unauthorized for a revoked or
// deleted key and for a request without a key off the anonymous route; else every
// scoped counter of the route's rules and the tenant's, decided as one by
// limiter.DecideAll.
func (r *reference) decide(req gate.Request, now int64) gate.Status {
	status, _ := r.reserve(req, now)
	return status
}

// refReservation is what an allowed request reserved: its counters with their sets,
// at its instant, for its cost.
type refReservation struct {
	counters    []refCounter
	sets        []*limiter.Set
	at, cost    int64
	id          string // the gate's Reservation.ID
	expires     int64
	settled     bool
	settledCost int64
}

// reserve is decide, also returning what an allowed request reserved.
func (r *reference) reserve(req gate.Request, now int64) (gate.Status, *refReservation) {
	who, ok := r.caller(req)
	if !ok {
		return gate.Unauthorized, nil
	}
	var counters []refCounter
	var sets []*limiter.Set
	zone := r.limiterZone()
	add := func(route string, rules []limiter.Rule) {
		for _, scope := range limiter.Scopes {
			var these []limiter.Rule
			for _, rule := range rules {
				if rule.Scope == scope {
					these = append(these, rule)
				}
			}
			if len(these) > 0 && r.hot {
				these = hotRules(these)
			}
			if len(these) > 0 {
				set, err := limiter.NewSet(these, zone)
				if err != nil {
					panic(err) // the generator's rules are valid
				}
				counters, sets = append(counters, refCounter{r.epoch, route, scope, who[scope]}), append(sets, set)
			}
		}
	}
	switch req.Resource {
	case modelKeyed:
		add(modelKeyed, r.keyed)
	case modelPublic:
		add(modelPublic, r.public)
	}
	add("", r.rules)
	status := r.decideAll(counters, sets, now, req.Cost)
	if status != gate.Allowed {
		return status, nil
	}
	return status, &refReservation{counters: counters, sets: sets, at: now, cost: req.Cost}
}

// settle settles reservation v at now at cost: limiter.Set.Settle on each of its
// counters' states.
func (r *reference) settle(v *refReservation, now, cost int64) {
	for i, set := range v.sets {
		states := r.states(v.counters[i], set)
		set.Settle(states, v.at, now, cost-v.cost)
		r.keep(v.counters[i], set, states)
	}
}

// states returns counter's states for set: the kept ones by state id, new ones else.
func (r *reference) states(counter refCounter, set *limiter.Set) []limiter.State {
	states := set.NewStates()
	for j := range states {
		if st, ok := r.counters[counter][set.Rule(j).StateID()]; ok {
			states[j] = st
		}
	}
	return states
}

// keep stores counter's states for set by state id.
func (r *reference) keep(counter refCounter, set *limiter.Set, states []limiter.State) {
	if r.counters[counter] == nil {
		r.counters[counter] = map[string]limiter.State{}
	}
	for j := range states {
		r.counters[counter][set.Rule(j).StateID()] = states[j]
	}
}

// caller returns who req is for each scope, or false when it is Unauthorized.
func (r *reference) caller(req gate.Request) (map[limiter.Scope]string, bool) {
	if req.APIKey == "" {
		if req.Resource != modelPublic {
			return nil, false
		}
		return map[limiter.Scope]string{limiter.ScopeTenant: "", limiter.ScopeKey: "no key from " + req.SourceIP, limiter.ScopeIP: req.SourceIP}, true
	}
	for _, k := range r.keys {
		if k.raw == req.APIKey {
			return map[limiter.Scope]string{limiter.ScopeTenant: "", limiter.ScopeKey: "key " + k.id, limiter.ScopeIP: req.SourceIP}, k.live
		}
	}
	return nil, false
}

// decideAll decides the counters with their sets at now, keeping their states by
// state id.
func (r *reference) decideAll(counters []refCounter, sets []*limiter.Set, now, cost int64) gate.Status {
	states := make([][]limiter.State, len(sets))
	for i, set := range sets {
		states[i] = r.states(counters[i], set)
	}
	outs := make([]limiter.Decision, len(sets))
	allowed, err := limiter.DecideAll(sets, states, now, cost, outs)
	if err != nil {
		panic(err) // costs are below every capacity
	}
	for i, set := range sets {
		r.keep(counters[i], set, states[i])
	}
	if allowed {
		return gate.Allowed
	}
	return gate.Denied
}
