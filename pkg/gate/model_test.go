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
	"os"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

var (
	modelFor  = flag.Duration("model.duration", 0, "how long TestModel generates cases, per backend (0: 1m with CI=true, 2s with -short, else 15s)")
	modelSeed = flag.Uint64("model.seed", 0, "run TestModel's one case of this seed (0: new seeds)")
	modelAll  = flag.Bool("model.backends", false, "run TestModel on Redis and Upstash too (with their services)")
)

// TestModel runs generated tenants (every algorithm and scope, routes, an anonymous one
// among them, several keys) and generated traffic (keys, no key, addresses, costs,
// instants moving forward with jitter), interleaved with admin operations (usage reads,
// resets, rule changes, key revocations, delete and create again), through the gate and
// the admin API over one counter store, against a reference that applies pkg/limiter
// to each scoped counter on its own. A difference fails with its seed: rerun it with
// -model.seed. The config cache is off (as in edgelimit dev), so every admin change
// applies at the next request.
func TestModel(t *testing.T) {
	backends := counterBackends[:1]
	if *modelAll {
		backends = counterBackends
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			counters := b.open(t)
			if *modelSeed != 0 {
				runModel(t, counters, *modelSeed)
				return
			}
			var n modelCounts
			for end := time.Now().Add(modelDuration()); time.Now().Before(end) && !t.Failed(); {
				n.add(runModel(t, counters, rand.Uint64()|1))
			}
			t.Logf("%s: %d cases, %d decisions (%d allowed), %d admin operations", b.name, n.cases, n.decisions, n.allowed, n.admin)
		})
	}
}

// modelDuration is how long TestModel runs per backend: -model.duration, else about a
// minute in CI, 2s with -short, 15s otherwise.
func modelDuration() time.Duration {
	switch {
	case *modelFor > 0:
		return *modelFor
	case os.Getenv("CI") == "true":
		return time.Minute
	case testing.Short():
		return 2 * time.Second
	}
	return 15 * time.Second
}

type modelCounts struct{ cases, decisions, allowed, admin int }

func (n *modelCounts) add(m modelCounts) {
	n.cases, n.decisions, n.allowed, n.admin = n.cases+m.cases, n.decisions+m.decisions, n.allowed+m.allowed, n.admin+m.admin
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
	n     modelCounts
}

// runModel runs one case of seed against counters and returns its counts.
func runModel(t *testing.T, counters store.Counters, seed uint64) modelCounts {
	m := &modelRun{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, seed>>1)), now: t0, id: uniqueID(t, "model")}
	tenants := memory.NewTenants()
	clock := func() int64 { return m.now }
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: clock, ConfigTTL: -1, AnonymousTenant: m.id})
	if err != nil {
		t.Fatal(err)
	}
	m.g = g
	if m.admin, err = admin.New(admin.Config{Tenants: tenants, Counters: counters, Now: clock, Audit: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
	m.ref = newReference(m.rng)
	m.create()
	for step := 0; step < 400 && !t.Failed(); step++ {
		m.now += m.rng.Int64N(300_000) // up to 0.3s of jitter
		if m.rng.IntN(20) == 0 {
			m.adminStep()
		} else {
			m.request()
		}
	}
	m.n.cases = 1
	return m.n
}

// request sends one generated request to the gate and to the reference.
func (m *modelRun) request() {
	req := m.ref.request(m.rng)
	res, err := m.g.Check(context.Background(), req)
	if err != nil || res.FailOpen || res.FailedClosed {
		m.t.Fatalf("seed %d: Check(%+v): %v, %s", m.seed, req, err, res.Reason)
	}
	want := m.ref.decide(req, m.now)
	m.n.decisions++
	if res.Status == gate.Allowed {
		m.n.allowed++
	}
	if res.Status != want {
		m.t.Fatalf("seed %d, decision %d at +%dus: %+v was %v, the reference says %v (%s, rule %q of %q)",
			m.seed, m.n.decisions, m.now-t0, req, res.Status, want, res.Reason, res.Rule, res.Route)
	}
}

// adminStep makes one admin operation through the admin API, and the reference's.
func (m *modelRun) adminStep() {
	m.n.admin++
	switch m.rng.IntN(5) {
	case 0:
		m.call(http.StatusOK, "GET", "/tenants/"+m.id+"/usage?ip="+m.ref.addr(m.rng), "")
	case 1:
		m.call(http.StatusOK, "POST", "/tenants/"+m.id+"/reset", "")
		m.ref.epoch++
	case 2:
		m.ref.newRules(m.rng)
		m.call(http.StatusOK, "PUT", "/tenants/"+m.id, m.ref.json(m.id))
	case 3:
		if k, ok := m.ref.someKey(m.rng); ok {
			m.call(http.StatusOK, "DELETE", "/tenants/"+m.id+"/keys/"+k.id, "")
			k.live = false
		}
	default:
		m.call(http.StatusNoContent, "DELETE", "/tenants/"+m.id, "")
		m.ref.newRules(m.rng)
		m.create()
	}
}

// create creates the reference's tenant with three keys.
func (m *modelRun) create() {
	m.call(http.StatusCreated, "PUT", "/tenants/"+m.id, m.ref.json(m.id))
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
