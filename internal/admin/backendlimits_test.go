package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// dynamoDBCounters is the DynamoDB counter store with no client behind it: checking a
// rule against its limits makes no request, and the admin API sends it none here.
func dynamoDBCounters() *dynamodb.Counters {
	return dynamodb.NewCounters(nil, "counters", dynamodb.CountersConfig{})
}

// A sliding_log of 5000 is valid, and DynamoDB cannot decide it (its log lives in one
// item, at most 1000 entries): the admin API refuses it when it is written, with a 422
// naming the field, and writes nothing. Before, it answered 201 and every request of
// the tenant then met the fail mode.
func TestRulesTheBackendCannotHonourAreRefused(t *testing.T) {
	const (
		log5000 = `{"algorithm": "sliding_log", "limit": 5000, "period": "1m"}`
		log1000 = `{"algorithm": "sliding_log", "limit": 1000, "period": "1m"}`
		ok      = `{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`
	)
	e := newEnv(t, stores{memory.NewTenants(), dynamoDBCounters()})
	e.create("small", `{"rules": [`+log1000+`]}`) // at the cap: honoured
	tests := []struct {
		name, method, path, body string
		headers                  []string
		field                    string
	}{
		{"create", "PUT", "/tenants/big", `{"rules": [` + log5000 + `]}`, nil, "rules[0].limit"},
		{"create with a route", "PUT", "/tenants/big", `{"rules": [` + ok + `], "routes": [
			{"method": "GET", "resource": "/a", "rules": [` + ok + `]},
			{"method": "POST", "resource": "/b", "rules": [` + log5000 + `]}]}`, nil, "routes[1].rules[0].limit"},
		{"replace", "PUT", "/tenants/small", `{"rules": [` + ok + `, ` + log5000 + `]}`, []string{"If-Match", `"1"`}, "rules[1].limit"},
		{"patch", "PATCH", "/tenants/small", `{"rules": [` + log5000 + `]}`, []string{"Content-Type", patchType, "If-Match", `"1"`}, "rules[0].limit"},
		{"create a plan", "PUT", "/plans/big", `{"rules": [` + log5000 + `]}`, nil, "rules[0].limit"},
		{"patch a route in", "PATCH", "/tenants/small", `{"routes": [{"method": "GET", "resource": "/a", "rules": [` + log5000 + `]}]}`,
			[]string{"Content-Type", patchType, "If-Match", `"1"`}, "routes[0].rules[0].limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.snapshot()
			p := e.do(tt.method, tt.path, tt.body, tt.headers...).problem(t, http.StatusUnprocessableEntity, "invalid-field", tt.field)
			if p.Value != "5000" || !strings.Contains(p.Detail, "1000") {
				t.Errorf("problem %+v: want the value 5000 and the backend's cap 1000 in the detail", p)
			}
			if after := e.snapshot(); after != before {
				t.Errorf("a refused %s wrote:\nbefore %s\nafter  %s", tt.name, before, after)
			}
		})
	}
	// The memory backend honours every valid rule: the same tenant is created there.
	mem := newEnv(t, stores{memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})})
	mem.create("big", `{"rules": [`+log5000+`]}`)
}

// Default rules (EDGELIMIT_DEFAULT_RULES) the counter store cannot honour stop the
// handler from starting, naming the rule.
func TestDefaultRulesTheBackendCannotHonour(t *testing.T) {
	rule, err := limiter.ParseRule([]byte(`{"algorithm": "sliding_log", "limit": 5000, "period": "1m"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = admin.New(admin.Config{Tenants: memory.NewTenants(), Counters: dynamoDBCounters(), DefaultRules: []limiter.Rule{rule}})
	if err == nil || !strings.Contains(err.Error(), "rules[0]") || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("admin.New with a sliding_log of 5000 on DynamoDB: %v, want an error naming rules[0] and its limit", err)
	}
}

// TestOverrideTheBackendCannotHonourIsRefused: "On DynamoDB a sliding_log limit is at
// most 1,000: a larger one is refused when it is written, by the admin API (422
// naming the field ...) rather than failing every decision" (docs/reference.md,
// "Rules"). TestRulesTheBackendCannotHonourAreRefused covers a tenant's rules, its
// routes' and a plan's; an override's rules are tenant-wide rules too, active until
// their until.
func TestOverrideTheBackendCannotHonourIsRefused(t *testing.T) {
	const (
		log5000 = `{"name": "strict", "algorithm": "sliding_log", "limit": 5000, "period": "1m"}`
		ok      = `{"name": "strict", "algorithm": "fixed_window", "limit": 10, "period": "1s"}`
	)
	e := newEnv(t, stores{memory.NewTenants(), dynamoDBCounters()})
	e.create("small", `{"rules": [`+ok+`]}`)
	override := `"overrides": [{"until": "2027-01-01T00:00:00Z", "rules": [` + log5000 + `]}]`
	for _, tt := range []struct {
		name, method, path, body string
		headers                  []string
	}{
		{"create", "PUT", "/tenants/big", `{"rules": [` + ok + `], ` + override + `}`, nil},
		{"patch", "PATCH", "/tenants/small", `{` + override + `}`, []string{"Content-Type", patchType, "If-Match", `"1"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := e.snapshot()
			e.do(tt.method, tt.path, tt.body, tt.headers...).problem(t, http.StatusUnprocessableEntity, "invalid-field", "overrides[0].rules[0].limit")
			if after := e.snapshot(); after != before {
				t.Errorf("a refused %s wrote:\nbefore %s\nafter  %s", tt.name, before, after)
			}
		})
	}
}
