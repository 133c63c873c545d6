package gate_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

var (
	modelFor  = flag.Duration("model.duration", 0, "how long TestModel generates cases, per backend (0: the backend's share, 20s or 40s, with CI=true; a tenth of it with -short, else half)")
	modelSeed = flag.Uint64("model.seed", 0, "run TestModel's one case of this seed (0: new seeds)")
	modelAll  = flag.Bool("model.backends", false, "run TestModel on Redis, Upstash and DynamoDB Local too, with and without hot counters (with their services; always with CI=true)")
)

// TestModel runs generated tenants (every algorithm and scope, concurrency rules and
// calendar windows among them, routes, an anonymous one among them, several keys) and
// generated traffic (keys, no key, addresses, costs, instants moving forward with
// jitter, bursts and idle gaps of hours, settles of the allowed requests' reservations
// at a higher or lower cost, twice or past their expiry: see settleStep; not over hot
// counters, whose reference only bounds what they allow), interleaved with admin
// operations (usage reads, resets, rule changes, time-zone changes, key revocations,
// moves onto and off a plan holding the same rules, rule changes made to that plan,
// delete and create again), through the gate and the admin
// API over one counter store, against a reference that applies pkg/limiter to each
// scoped counter on its own, with the tenant's zone history. A difference fails with
// its seed: rerun it with -model.seed. The config cache is off (as in edgelimit dev),
// so every admin change applies at the next request. With hot counters the reference is held to their
// documented bounds instead (see checkHot). The gate has the production latency
// budget (but on DynamoDB Local, see modelDynamoBudget): a case whose store call runs
// past it ends there (see request).
func TestModel(t *testing.T) {
	backends := modelBackends[:1]
	if modelRunsAll() {
		backends = modelBackends
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			stores := openModel(t, b)
			if b.open != nil { // a service: its first requests open connections and warm it up
				runModel(t, stores, 1, modelWarmBudget)
			}
			if *modelSeed != 0 {
				runModel(t, stores, *modelSeed, b.budget)
				return
			}
			var n modelCounts
			for end := time.Now().Add(modelDuration(b)); time.Now().Before(end) && !t.Failed(); {
				n.add(runModel(t, stores, rand.Uint64()|1, b.budget))
			}
			t.Logf("%s: %d cases (%d ended by the latency budget), %d decisions (%d allowed), %d settles, %d admin operations (%d time-zone changes, %d plan writes)",
				b.name, n.cases, n.cut, n.decisions, n.allowed, n.settles, n.admin, n.zones, n.plans)
			if least := int(modelDuration(b).Seconds() * modelLeastRate); n.decisions < least && !t.Failed() {
				t.Errorf("%d decisions compared, fewer than %d: the store is too slow to model", n.decisions, least)
			}
			if stores.hot != nil {
				st := stores.hot.Stats()
				t.Logf("%s: %d decisions served from leases, %d reservations, largest lease %d, %d units lost",
					b.name, st.Leased, st.Reservations, st.MaxLease, st.Lost)
				if st.Leased == 0 && !t.Failed() {
					t.Error("no decision was served from a lease: the hot run tested cold counters only")
				}
			}
		})
	}
}

type modelCounts struct{ cases, cut, decisions, allowed, admin, zones, settles, plans int }

func (n *modelCounts) add(m modelCounts) {
	n.cases, n.cut, n.decisions, n.allowed = n.cases+m.cases, n.cut+m.cut, n.decisions+m.decisions, n.allowed+m.allowed
	n.admin, n.zones, n.settles, n.plans = n.admin+m.admin, n.zones+m.zones, n.settles+m.settles, n.plans+m.plans
}

// modelRun is one case: the system under test and the reference, side by side.
type modelRun struct {
	t     *testing.T
	seed  uint64
	rng   *rand.Rand
	now   int64
	g     *gate.Gate
	admin http.Handler
	id    string
	ref   *reference
	burst int // decisions left in the current burst
	cut   bool
	// reserved holds the allowed requests' reservations since the last admin
	// operation, which settleStep settles.
	reserved []*refReservation
	// plan is the id of the plan the tenant is on ("" for none); planMade, whether
	// that plan was created.
	plan     string
	planMade bool
	n        modelCounts
}

// modelSecret seals the model's reservations.
var modelSecret = []byte(strings.Repeat("model secret ", 4))

// modelLeastRate is the fewest decisions a second a run must compare: a store whose
// calls often take longer than the latency budget ends most cases early.
const modelLeastRate = 50

// modelWarmBudget is the latency budget of the case that warms a service up (DynamoDB
// Local's first transactions take longer than the production budget).
const modelWarmBudget = 10 * time.Second

// runModel runs one case of seed against stores, with the gate's latency budget
// (0: the production default), and returns its counts.
func runModel(t *testing.T, stores modelStores, seed uint64, budget time.Duration) modelCounts {
	m := &modelRun{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed>>1)), now: modelT0, id: uniqueID(t, "model")}
	tenants := memory.NewTenants()
	clock := func() int64 { return m.now }
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: stores.gate, Now: clock, ConfigTTL: -1, ReservationSecret: modelSecret,
		AnonymousTenant: m.id, LatencyBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	m.g = g
	if m.admin, err = admin.New(admin.Config{Tenants: tenants, Counters: stores.admin, Now: clock, Audit: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
	m.ref = newReference(m.rng, stores.hot != nil)
	m.create()
	for step := 0; step < 400 && !m.cut && !t.Failed(); step++ {
		m.advance()
		switch {
		case m.rng.IntN(20) == 0:
			m.adminStep()
			m.reserved = nil // a reservation of rules since changed, or reset, is settled by no one here
		case len(m.reserved) > 0 && m.rng.IntN(6) == 0:
			m.settleStep()
		default:
			m.request()
		}
	}
	m.n.cases = 1
	return m.n
}

// modelT0 is where a case's clock starts: a minute before midnight UTC, the night
// Paris and London move their clocks forward, and ahead of the wall clock, so that no
// store's expiry (DynamoDB's TTL) runs on the real clock before the state's own.
var modelT0 = limiter.Micros(time.Date(2030, 3, 30, 23, 59, 0, 0, time.UTC))

// advance moves the clock forward: up to 0.3s of jitter, bursts of 30 to 90
// decisions up to 5ms apart (fast enough to turn counters hot), and idle gaps of up to
// 8 hours (across the calendar windows' boundaries and time-zone changes).
func (m *modelRun) advance() {
	switch {
	case m.burst > 0:
		m.burst--
		m.now += m.rng.Int64N(5_000)
	case m.rng.IntN(30) == 0:
		m.burst = 30 + m.rng.IntN(60)
	case m.rng.IntN(60) == 0:
		m.now += m.rng.Int64N(8 * 3600 * 1_000_000)
	default:
		m.now += m.rng.Int64N(300_000)
	}
}

// request sends one generated request to the gate and to the reference.
func (m *modelRun) request() {
	req := m.ref.request(m.rng)
	res, err := m.g.Check(context.Background(), req)
	if err == nil && (res.FailOpen || res.FailedClosed) && strings.Contains(res.Reason, context.DeadlineExceeded.Error()) {
		// The fail mode answered a store slower than the production budget, which may or
		// may not have counted the request: the reference cannot follow, the case ends.
		m.n.cut, m.cut = 1, true
		return
	}
	if err != nil || res.FailOpen || res.FailedClosed {
		m.t.Fatalf("seed %d: Check(%+v): %v, %s", m.seed, req, err, res.Reason)
	}
	m.n.decisions++
	if res.Status == gate.Allowed {
		m.n.allowed++
	}
	if m.ref.hot {
		m.checkHot(req, res)
		return
	}
	want, v := m.ref.reserve(req, m.now)
	if res.Status != want {
		m.t.Fatalf("seed %d, decision %d at +%dus: %+v was %v, the reference says %v (%s, rule %q of %q)",
			m.seed, m.n.decisions, m.now-modelT0, req, res.Status, want, res.Reason, res.Rule, res.Route)
	}
	if v != nil && res.Reservation.ID != "" {
		v.id, v.expires = res.Reservation.ID, res.Reservation.Expires
		m.reserved = append(m.reserved, v)
	}
}

// settleStep settles a reservation made since the last admin operation at a cost of
// 0 to 3 (a charge or a refund of up to 2), through the gate, and in the reference:
// past its expiry, the estimate stands; once settled, a second settle must say so and
// change nothing.
func (m *modelRun) settleStep() {
	v := m.reserved[m.rng.IntN(len(m.reserved))]
	cost := m.rng.Int64N(4)
	res, err := m.g.Settle(context.Background(), v.id, cost)
	want := gate.SettleSettled
	switch {
	case m.now >= v.expires:
		want = gate.SettleExpired
	case v.settled:
		want = gate.SettleAlreadySettled
	}
	if err != nil || res.Status != want {
		m.t.Fatalf("seed %d, at +%dus: settle of a reservation of %d at %d (settled %v at %d) at %d: %+v, %v; want %s",
			m.seed, m.now-modelT0, v.cost, v.at-modelT0, v.settled, v.settledCost, cost, res, err, want)
	}
	m.n.settles++
	if want == gate.SettleSettled {
		m.ref.settle(v, m.now, cost)
		v.settled, v.settledCost = true, cost
	}
}

// checkHot holds a decision made over hot counters to their bounds (docs/backends.md,
// "Bounds", for one instance): who is Unauthorized is exact, a denial is allowed (hot
// counters may deny falsely), and what is allowed is fed to the reference, whose
// bucket rules have the lease's worth of extra burst (see hotRules), and which
// must allow it: never more than a window's limit, nor a bucket's burst plus a lease.
// The reference sees the allowed requests only, as the store does.
func (m *modelRun) checkHot(req gate.Request, res gate.Result) {
	_, known := m.ref.caller(req)
	switch {
	case !known && res.Status != gate.Unauthorized, known && res.Status == gate.Unauthorized:
		m.t.Fatalf("seed %d, decision %d at +%dus: %+v was %v; the reference knows the caller: %v",
			m.seed, m.n.decisions, m.now-modelT0, req, res.Status, known)
	case res.Status == gate.Allowed:
		if want := m.ref.decide(req, m.now); want != gate.Allowed {
			m.t.Fatalf("seed %d, decision %d at +%dus: %+v was allowed beyond the hot counters' bounds (rule %q of %q)",
				m.seed, m.n.decisions, m.now-modelT0, req, res.Rule, res.Route)
		}
	}
}

// adminStep makes one admin operation through the admin API, and the reference's.
func (m *modelRun) adminStep() {
	m.n.admin++
	switch m.rng.IntN(7) {
	case 0:
		m.call(http.StatusOK, "GET", "/tenants/"+m.id+"/usage?ip="+m.ref.addr(m.rng), "")
	case 1:
		m.call(http.StatusOK, "POST", "/tenants/"+m.id+"/reset", "")
		m.ref.epoch++
	case 2:
		m.ref.newRules(m.rng)
		m.putRules()
	case 3:
		if k, ok := m.ref.someKey(m.rng); ok {
			m.call(http.StatusOK, "DELETE", "/tenants/"+m.id+"/keys/"+k.id, "")
			k.live = false
		}
	case 4:
		if m.ref.changeZone(m.rng, m.now) {
			m.call(http.StatusOK, "PUT", "/tenants/"+m.id, m.ref.json(m.id, m.plan))
			m.n.zones++
		}
	case 5:
		m.togglePlan()
	default:
		m.call(http.StatusNoContent, "DELETE", "/tenants/"+m.id, "")
		m.ref.newRules(m.rng)
		m.create()
	}
}

// putRules writes the reference's new rules: the tenant's own, or its plan's, which
// every tenant on the plan then has.
func (m *modelRun) putRules() {
	if m.plan == "" {
		m.call(http.StatusOK, "PUT", "/tenants/"+m.id, m.ref.json(m.id, ""))
		return
	}
	m.call(http.StatusOK, "PUT", "/plans/"+m.plan, m.ref.planJSON())
	m.n.plans++
}

// togglePlan moves the tenant onto a plan holding its rules and routes (the plan
// created, or replaced), or off it, back to the same rules of its own: what a request
// is limited by stays the same, and so must its counters.
func (m *modelRun) togglePlan() {
	if m.plan != "" {
		m.plan = ""
		m.call(http.StatusOK, "PUT", "/tenants/"+m.id, m.ref.json(m.id, ""))
		return
	}
	m.plan = m.id + "-plan"
	if m.planMade {
		m.call(http.StatusOK, "PUT", "/plans/"+m.plan, m.ref.planJSON())
	} else {
		m.call(http.StatusCreated, "PUT", "/plans/"+m.plan, m.ref.planJSON())
		m.planMade = true
	}
	m.call(http.StatusOK, "PUT", "/tenants/"+m.id, m.ref.json(m.id, m.plan))
	m.n.plans++
}

// create creates the reference's tenant, with rules of its own, and three keys.
func (m *modelRun) create() {
	m.plan = ""
	m.call(http.StatusCreated, "PUT", "/tenants/"+m.id, m.ref.json(m.id, ""))
	m.ref.recreated()
	for range 3 {
		var k struct {
			Key   string `json:"key"`
			KeyID string `json:"key_id"`
		}
		if err := json.Unmarshal([]byte(m.call(http.StatusCreated, "POST", "/tenants/"+m.id+"/keys", "{}")), &k); err != nil {
			m.t.Fatal(err)
		}
		m.ref.keys = append(m.ref.keys, &refKey{raw: k.Key, id: k.KeyID, live: true})
	}
}

// call sends an admin request that must answer want and returns its body.
func (m *modelRun) call(want int, method, path, body string) string {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if want != http.StatusCreated {
		req.Header.Set("If-Match", "*")
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	m.admin.ServeHTTP(rec, req)
	if rec.Code != want {
		m.t.Fatalf("seed %d: %s %s: %d %s; want %d", m.seed, method, path, rec.Code, rec.Body, want)
	}
	return rec.Body.String()
}
