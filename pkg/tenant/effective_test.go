package tenant

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// randomRules returns up to 4 rules named from a small pool, so that lists share names,
// each with a limit that tells its source (source*1000 + i).
func randomRules(rng *rand.Rand, source int) []limiter.Rule {
	var out []limiter.Rule
	seen := map[string]bool{}
	for i := range rng.IntN(5) {
		name := fmt.Sprintf("r%d", rng.IntN(6))
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, limiter.Rule{Name: name, Algorithm: limiter.FixedWindow, Limit: int64(source*1000 + i + 1), Period: limiter.Every(time.Minute)}.Normalized())
	}
	return out
}

// TestEffectiveMergeProperty checks EffectiveFor against its definition on seeded
// random plans, tenants, key rules and overrides: every rule named in any source is
// there once, taken from the last source that names it (plan, then tenant, then key,
// then the overrides active at now in order), no ended override counts, and a key's
// rule is a key-scope rule, left out where the name is a shared (tenant-scope) rule's.
func TestEffectiveMergeProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	const now = int64(1_800_000_000_000_000)
	for iter := range 2000 {
		plan := &Plan{ID: "pro", Rules: randomRules(rng, 1)}
		ten := Tenant{ID: "acme", Plan: "pro", Rules: randomRules(rng, 2)}
		keyRules := randomRules(rng, 9)
		for i := range plan.Rules {
			if rng.IntN(2) == 0 {
				plan.Rules[i].Scope = limiter.ScopeKey
			}
		}
		for o := range rng.IntN(4) {
			until := now + int64(rng.IntN(3)-1) // ended, ending at now, or active
			ten.Overrides = append(ten.Overrides, Override{Rules: randomRules(rng, 3+o), Until: time.UnixMicro(until)})
		}
		want := map[string]limiter.Rule{}
		var order []string
		layers := [][]limiter.Rule{plan.Rules, ten.Rules, nil}
		for _, r := range keyRules {
			if prev, ok := lastNamed(plan.Rules, ten.Rules, r.Name); !ok || prev.Scope == limiter.ScopeKey {
				r.Scope = limiter.ScopeKey
				layers[2] = append(layers[2], r)
			}
		}
		for _, o := range ten.Overrides {
			if o.UntilMicros() > now {
				layers = append(layers, o.Rules)
			}
		}
		for _, layer := range layers {
			for _, r := range layer {
				if _, ok := want[r.Name]; !ok {
					order = append(order, r.Name)
				}
				want[r.Name] = r
			}
		}
		got := ten.EffectiveFor(plan, keyRules, now)
		var names []string
		for _, r := range got.Rules {
			names = append(names, r.Name)
			if want[r.Name] != r {
				t.Fatalf("iteration %d: rule %s = %+v, want %+v (layers %v)", iter, r.Name, r, want[r.Name], layers)
			}
		}
		if !slices.Equal(names, order) {
			t.Fatalf("iteration %d: names %v, want %v", iter, names, order)
		}
		if got.Plan != "" || got.Overrides != nil {
			t.Fatalf("iteration %d: the effective tenant names plan %q and holds %d overrides", iter, got.Plan, len(got.Overrides))
		}
	}
}

// lastNamed returns the rule named name of the tenant's list over the plan's, as the
// merge before the key's rules holds it.
func lastNamed(plan, own []limiter.Rule, name string) (limiter.Rule, bool) {
	for _, list := range [][]limiter.Rule{own, plan} {
		for _, r := range list {
			if r.Name == name {
				return r, true
			}
		}
	}
	return limiter.Rule{}, false
}

// TestOverrideEndsAtItsInstant pins the end of an override: at until-1µs it applies,
// at until it does not, and OverridesEnd says when the rules change.
func TestOverrideEndsAtItsInstant(t *testing.T) {
	until := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	ten := Tenant{ID: "acme", Rules: []limiter.Rule{{Name: "rps", Algorithm: limiter.TokenBucket, Limit: 10, Period: limiter.Every(1e9)}},
		Overrides: []Override{{Rules: []limiter.Rule{{Name: "rps", Algorithm: limiter.TokenBucket, Limit: 100, Period: limiter.Every(1e9)}}, Until: until}}}.Normalized()
	u := limiter.Micros(until)
	if got := ten.Effective(nil, u-1).Rules[0].Limit; got != 100 {
		t.Errorf("at until-1µs the limit is %d, want the override's 100", got)
	}
	if got := ten.Effective(nil, u).Rules[0].Limit; got != 10 {
		t.Errorf("at until the limit is %d, want the tenant's 10", got)
	}
	if got := ten.OverridesEnd(u - 1); got != u {
		t.Errorf("OverridesEnd(until-1µs) = %d, want %d", got, u)
	}
	if got := ten.OverridesEnd(u); got != 1<<63-1 {
		t.Errorf("OverridesEnd(until) = %d, want none", got)
	}
}

func TestPlanRoutesMerge(t *testing.T) {
	rule := func(limit int64) []limiter.Rule {
		return []limiter.Rule{{Algorithm: limiter.TokenBucket, Limit: limit, Period: limiter.Every(1e9)}}
	}
	plan := &Plan{ID: "pro", Rules: rule(1), Routes: []Route{
		{Method: "GET", Resource: "/a", Rules: rule(2)}, {Method: "GET", Resource: "/b", Rules: rule(3)}}}
	ten := Tenant{ID: "acme", Plan: "pro", Routes: []Route{{Method: "GET", Resource: "/b", Rules: rule(30)}, {Method: "POST", Resource: "/c", Rules: rule(4)}}}
	got := ten.Effective(plan, 0)
	var limits []int64
	for _, r := range got.Routes {
		limits = append(limits, r.Rules[0].Limit)
	}
	if !slices.Equal(limits, []int64{2, 30, 4}) || len(got.Rules) != 1 || got.Rules[0].Limit != 1 {
		t.Fatalf("route limits %v, rules %+v: want [2 30 4] and the plan's rule", limits, got.Rules)
	}
	if err := ten.Normalized().Validate(); err != nil {
		t.Errorf("a tenant on a plan without rules of its own: %v", err)
	}
	if err := ten.CheckPlan(plan); err != nil {
		t.Errorf("CheckPlan: %v", err)
	}
	if err := ten.CheckPlan(nil); err == nil {
		t.Error("CheckPlan without the plan: no error")
	}
}

func TestDecodePlanAndOverrides(t *testing.T) {
	good := `{"id":"acme","plan":"pro","overrides":[{"rules":[{"name":"daily","algorithm":"fixed_window","limit":5,"period":"day"}],"until":"2026-12-24T00:00:00+09:00"}]}`
	ten, err := Decode([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if ten.Plan != "pro" || len(ten.Overrides) != 1 || !ten.Overrides[0].Until.Equal(time.Date(2026, 12, 23, 15, 0, 0, 0, time.UTC)) {
		t.Fatalf("decoded %+v", ten)
	}
	for _, tt := range []struct{ body, field string }{
		{`{"id":"acme","rules":[]}`, "rules"},
		{`{"id":"acme","plan":"Pro"}`, "plan"},
		{`{"id":"acme","plan":"pro","overrides":[{"rules":[{"algorithm":"fixed_window","limit":5,"period":"day"}]}]}`, "overrides[0].until"},
		{`{"id":"acme","plan":"pro","overrides":[{"until":"tomorrow"}]}`, "overrides[0].until"},
		{`{"id":"acme","plan":"pro","overrides":[{"until":"2026-12-24T00:00:00Z"}]}`, "overrides[0].rules"},
		{`{"id":"acme","plan":"pro","overrides":[{"rules":[],"until":"2026-12-24T00:00:00Z","from":1}]}`, "overrides[0].from"},
	} {
		_, err := Decode([]byte(tt.body))
		var fe *limiter.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("Decode(%s) = %v, want a FieldError for %s", tt.body, err, tt.field)
		}
	}
}

func TestPlanValidate(t *testing.T) {
	p := Plan{ID: "pro", Routes: []Route{{Method: "GET", Resource: "/a"}}}
	var fe *limiter.FieldError
	if err := p.Validate(); !errors.As(err, &fe) || fe.Field != "rules" {
		t.Errorf("a plan without rules: %v", err)
	}
	p.Rules = []limiter.Rule{{Algorithm: limiter.TokenBucket, Limit: 1, Period: limiter.Every(1e9)}}
	if err := p.Validate(); !errors.As(err, &fe) || fe.Field != "routes[0].rules" {
		t.Errorf("a plan route without rules: %v", err)
	}
	p.Routes = nil
	if err := p.Normalized().Validate(); err != nil {
		t.Errorf("a valid plan: %v", err)
	}
}

func TestDecodePlan(t *testing.T) {
	p, err := DecodePlan([]byte(`{"id":"pro","rules":[{"algorithm":"token_bucket","limit":5,"period":"1s"}],"routes":[{"method":"GET","resource":"/a","rules":[{"algorithm":"fixed_window","limit":1,"period":"1m"}]}]}`))
	if err != nil || p.Rules[0].Name == "" || p.Rules[0].Scope != limiter.ScopeTenant || len(p.Routes) != 1 {
		t.Fatalf("DecodePlan: %+v, %v", p, err)
	}
	for _, tt := range []struct{ body, field string }{
		{`{"id":"pro","rules":[{"algorithm":"token_bucket","limit":5,"period":"1s"}],"plan":"x"}`, "plan"},
		{`{"id":"pro","rules":[{"algorithm":"token_bucket","limit":0,"period":"1s"}]}`, "rules[0].limit"},
		{`{"id":"Pro","rules":[{"algorithm":"token_bucket","limit":5,"period":"1s"}]}`, "id"},
	} {
		_, err := DecodePlan([]byte(tt.body))
		var fe *limiter.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("DecodePlan(%s) = %v, want a FieldError for %s", tt.body, err, tt.field)
		}
	}
}
