package admin_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const proPlan = `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 1000, "period": "day"}],
  "routes": [{"method": "POST", "resource": "/orders", "rules": [{"name": "orders", "algorithm": "token_bucket", "limit": 5, "period": "1s"}]}]}`

// plan decodes a plan answer.
func (r response) plan(t *testing.T) tenant.Plan {
	t.Helper()
	p, err := tenant.DecodePlan(r.body)
	if err != nil {
		t.Fatalf("plan %s: %v", r.body, err)
	}
	return p
}

// Plans are versioned as tenants are: PUT without If-Match creates (409 when the plan
// exists), with If-Match replaces (412 when it does not match), an unchanged PUT
// writes nothing, and GET /plans lists them.
func TestPlanVersions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		r := e.do("PUT", "/plans/pro", proPlan).want(t, http.StatusCreated)
		if r.header.Get("ETag") != `"1"` || r.plan(t).Version != 1 {
			t.Fatalf("created: ETag %s, %s", r.header.Get("ETag"), r.body)
		}
		e.do("PUT", "/plans/pro", proPlan).problem(t, http.StatusConflict, "already-exists", "")
		e.do("PUT", "/plans/pro", proPlan, "If-Match", `"2"`).problem(t, http.StatusPreconditionFailed, "precondition-failed", "If-Match")
		e.do("PUT", "/plans/gold", proPlan, "If-Match", `"1"`).problem(t, http.StatusNotFound, "not-found", "")
		if got := e.do("PUT", "/plans/pro", proPlan, "If-Match", `"1"`).want(t, http.StatusOK).plan(t); got.Version != 1 {
			t.Errorf("an unchanged PUT wrote version %d", got.Version)
		}
		bigger := strings.Replace(proPlan, "1000", "2000", 1)
		if got := e.do("PUT", "/plans/pro", bigger, "If-Match", `"1"`).want(t, http.StatusOK).plan(t); got.Version != 2 || got.Rules[0].Limit != 2000 {
			t.Errorf("replaced: %+v", got)
		}
		e.do("PUT", "/plans/pro", `{"id": "other", "rules": []}`).problem(t, http.StatusUnprocessableEntity, "invalid-field", "id")
		e.do("PUT", "/plans/free", `{"rules": [{"algorithm": "fixed_window", "limit": 0, "period": "1s"}]}`).
			problem(t, http.StatusUnprocessableEntity, "invalid-field", "rules[0].limit")
		e.do("GET", "/plans/free", "").problem(t, http.StatusNotFound, "not-found", "")
		e.do("PUT", "/plans/free", `{"rules": [{"algorithm": "fixed_window", "limit": 10, "period": "1s"}]}`).want(t, http.StatusCreated)
		var list struct {
			Plans []tenant.Plan `json:"plans"`
			Next  *string       `json:"next_page_token"`
		}
		e.do("GET", "/plans?limit=1", "").want(t, http.StatusOK).json(t, &list)
		if len(list.Plans) != 1 || list.Next == nil {
			t.Fatalf("first page: %+v", list)
		}
		ids := []string{list.Plans[0].ID}
		e.do("GET", "/plans?limit=1&page_token="+*list.Next, "").want(t, http.StatusOK).json(t, &list)
		ids = append(ids, list.Plans[0].ID)
		if slices.Sort(ids); !slices.Equal(ids, []string{"free", "pro"}) {
			t.Errorf("listed %v", ids)
		}
	})
}

// A tenant naming a plan that does not exist is a 422 naming plan, and writes nothing;
// a plan in use is not deleted: 409 naming a tenant on it. Once its tenant has left it,
// it is.
func TestPlanReferences(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		before := e.snapshot()
		p := e.do("PUT", "/tenants/acme", `{"plan": "pro"}`).problem(t, http.StatusUnprocessableEntity, "invalid-field", "plan")
		if p.Value != `"pro"` {
			t.Errorf("problem %+v: want the value \"pro\"", p)
		}
		if after := e.snapshot(); after != before {
			t.Errorf("a refused tenant wrote: %s", after)
		}
		e.do("PUT", "/plans/pro", proPlan).want(t, http.StatusCreated)
		acme := e.create("acme", `{"plan": "pro"}`)
		if acme.Plan != "pro" || acme.Rules != nil {
			t.Errorf("tenant on the plan: %+v", acme)
		}
		e.create("beta", `{"plan": "pro", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 5, "period": "day"}]}`)
		e.do("DELETE", "/plans/pro", "").problem(t, http.StatusPreconditionRequired, "precondition-required", "If-Match")
		p = e.do("DELETE", "/plans/pro", "", "If-Match", `"1"`).problem(t, http.StatusConflict, "plan-in-use", "id")
		if !strings.Contains(p.Detail, `"acme"`) && !strings.Contains(p.Detail, `"beta"`) {
			t.Errorf("the refusal names no tenant on the plan: %s", p.Detail)
		}
		e.do("PATCH", "/tenants/acme", `{"plan": "gold"}`, "Content-Type", patchType, "If-Match", `"1"`).
			problem(t, http.StatusUnprocessableEntity, "invalid-field", "plan")
		e.do("PATCH", "/tenants/acme", `{"plan": null}`, "Content-Type", patchType, "If-Match", `"1"`).
			problem(t, http.StatusUnprocessableEntity, "invalid-field", "rules") // no rules of its own
		e.do("DELETE", "/tenants/acme", "", "If-Match", `"1"`).want(t, http.StatusNoContent)
		e.do("PATCH", "/tenants/beta", `{"plan": null}`, "Content-Type", patchType, "If-Match", `"1"`).want(t, http.StatusOK)
		e.do("DELETE", "/plans/pro", "", "If-Match", `"1"`).want(t, http.StatusNoContent)
		e.do("GET", "/plans/pro", "").problem(t, http.StatusNotFound, "not-found", "")
	})
}

// A tenant's temporary overrides are part of its JSON: written, read back, and
// validated (an override without until is a 422 naming it).
func TestTenantOverrides(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		body := `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"}],
		  "overrides": [{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 500, "period": "day"}], "until": "2026-01-11T00:00:00+01:00"}]}`
		got := e.create("sale", body)
		if len(got.Overrides) != 1 || got.Overrides[0].Until.Format("2006-01-02T15:04:05Z07:00") != "2026-01-10T23:00:00Z" {
			t.Fatalf("overrides %+v", got.Overrides)
		}
		e.do("PUT", "/tenants/bad", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "day"}], "overrides": [{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "day"}]}]}`).
			problem(t, http.StatusUnprocessableEntity, "invalid-field", "overrides[0].until")
	})
}

// Plan writes are audited as tenant writes are: operation, plan, versions and the
// names of the fields that changed.
func TestPlanAuditTrail(t *testing.T) {
	e, audit := newAuditEnv(t)
	e.do("PUT", "/plans/pro", proPlan).want(t, http.StatusCreated)
	e.do("PUT", "/plans/pro", proPlan).want(t, http.StatusConflict) // refused: not audited
	e.do("PUT", "/plans/pro", `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 5, "period": "day"}]}`, "If-Match", `"1"`).want(t, http.StatusOK)
	e.do("DELETE", "/plans/pro", "", "If-Match", `"2"`).want(t, http.StatusNoContent)
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		var r struct {
			Operation, Plan string
			OldVersion      int64 `json:"old_version"`
			NewVersion      int64 `json:"new_version"`
			Changed         []string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %d %d %s", r.Operation, r.Plan, r.OldVersion, r.NewVersion, strings.Join(r.Changed, "+")))
	}
	want := []string{"plan.create pro 0 1 id+routes+rules", "plan.replace pro 1 2 routes+rules", "plan.delete pro 2 0 "}
	if !slices.Equal(got, want) {
		t.Errorf("audit lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// GET /tenants/{id}/usage reports the rules the tenant is limited by: its plan's, its
// own, and its active overrides', each rule once by name.
func TestUsageOfATenantOnAPlan(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.do("PUT", "/plans/pro", proPlan).want(t, http.StatusCreated)
		until := rfc3339(t0.Add(time.Hour))
		e.create("acme", `{"plan": "pro", "rules": [{"name": "burst", "algorithm": "token_bucket", "limit": 10, "period": "1s"}],
		  "overrides": [{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 3000, "period": "day"}], "until": "`+until+`"}]}`)
		limits := func() map[string]int64 {
			var u struct {
				Rules []struct {
					Route *string `json:"route"`
					Rule  struct {
						Name  string `json:"name"`
						Limit int64  `json:"limit"`
					} `json:"rule"`
				} `json:"rules"`
			}
			e.do("GET", "/tenants/acme/usage", "").want(t, http.StatusOK).json(t, &u)
			out := map[string]int64{}
			for _, r := range u.Rules {
				route := ""
				if r.Route != nil {
					route = *r.Route
				}
				out[route+"/"+r.Rule.Name] = r.Rule.Limit
			}
			return out
		}
		want := map[string]int64{"/daily": 3000, "/burst": 10, "POST /orders/orders": 5}
		if got := limits(); !maps.Equal(got, want) {
			t.Errorf("before until: %v, want %v", got, want)
		}
		e.clock.Advance(time.Hour)
		want["/daily"] = 1000
		if got := limits(); !maps.Equal(got, want) {
			t.Errorf("at until: %v, want %v", got, want)
		}
	})
}

// A key issued with rules of its own shows them, and the authorizer counts that key's
// requests under them; a bad key rule is a 422 naming it, and no key is made.
func TestKeyWithRulesOfItsOwn(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", `{"rules": [{"name": "per-key", "algorithm": "fixed_window", "limit": 2, "period": "1m", "scope": "key"}]}`)
		var k struct {
			Key   string `json:"key"`
			Rules []struct {
				Name  string `json:"name"`
				Limit int64  `json:"limit"`
				Scope string `json:"scope"`
			} `json:"rules"`
		}
		e.do("POST", "/tenants/acme/keys", `{"rules": [{"name": "per-key", "algorithm": "fixed_window", "limit": 5, "period": "1m"}]}`).
			want(t, http.StatusCreated).json(t, &k)
		if len(k.Rules) != 1 || k.Rules[0].Limit != 5 || k.Rules[0].Scope != "key" {
			t.Fatalf("the key's rules: %+v", k.Rules)
		}
		plain, _ := e.issueKey("acme")
		g := e.gate(-1, "")
		for _, tt := range []struct {
			key  string
			want int64
		}{{k.Key, 5}, {plain, 2}} {
			if res := e.check(g, tt.key, "GET", "/"); res.Decision.Limit != tt.want {
				t.Errorf("limit %d, want %d", res.Decision.Limit, tt.want)
			}
		}
		before := e.snapshot()
		e.do("POST", "/tenants/acme/keys", `{"rules": [{"name": "x", "algorithm": "fixed_window", "limit": 0, "period": "1m"}]}`).
			problem(t, http.StatusUnprocessableEntity, "invalid-field", "rules[0].limit")
		e.do("POST", "/tenants/acme/keys", `{"rules": [{"name": "x", "algorithm": "fixed_window", "limit": 1, "period": "1m", "scope": "ip"}]}`).
			problem(t, http.StatusUnprocessableEntity, "invalid-field", "rules[0].scope")
		if after := e.snapshot(); after != before {
			t.Errorf("a refused key was written")
		}
	})
}

// TestTenantOnAPlanGetsNoDefaultRules: "A tenant on a plan may have no rules of
// its own (they read back as null)" (docs/reference.md, "Tenants and API keys"), and
// the README's example creates one with {"plan": "pro"}. Under the stack's default
// DefaultRules (template.yaml: a token bucket "burst" of 10/s, burst 20), such a
// tenant must still be limited by its plan alone, after a patch too.
func TestTenantOnAPlanGetsNoDefaultRules(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	rule, err := limiter.ParseRule([]byte(`{"name": "burst", "algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 20}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.h, err = admin.New(admin.Config{Tenants: e.st.tenants, Counters: e.st.counters, Now: e.clock.Now, DefaultRules: []limiter.Rule{rule}}); err != nil {
		t.Fatal(err)
	}
	e.do("PUT", "/plans/pro", `{"rules": [{"name": "burst", "algorithm": "token_bucket", "limit": 1000, "period": "1s"}]}`).want(t, 201)
	if tn := e.create("beta", `{"plan": "pro"}`); tn.Rules != nil {
		t.Errorf("a tenant created on a plan, without rules, reads back rules %+v; want null", tn.Rules)
	}
	if tn := e.do("PATCH", "/tenants/beta", `{"rules": null, "metadata": {"tier": "beta"}}`, "Content-Type", patchType, "If-Match", `"1"`).
		want(t, 200).tenant(t); tn.Rules != nil {
		t.Errorf("the tenant on a plan, patched to remove its rules, reads back rules %+v; want null", tn.Rules)
	}
	raw, _ := e.issueKey("beta")
	if res := e.check(e.gate(-1, ""), raw, "GET", "/x"); res.Decision.Limit != 1000 {
		t.Errorf("the tenant on plan pro is limited by %q of capacity %d, want the plan's 1000", res.Rule, res.Decision.Limit)
	}
}
