package simulate

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// --plan: the plan's rules come first; a --rule of the same name replaces the plan's,
// others are added; errors name the plan or the flag.
func TestParseRulesWithAPlan(t *testing.T) {
	plan := `{"id": "pro", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"},
	  {"name": "burst", "algorithm": "token_bucket", "limit": 5, "period": "1s"}]}`
	set, err := ParseRules(plan, []string{`{"name": "burst", "algorithm": "token_bucket", "limit": 50, "period": "1s"}`,
		`{"name": "minute", "algorithm": "sliding_window", "limit": 20, "period": "1m"}`}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range set.Len() {
		r := set.Rule(i)
		got = append(got, fmt.Sprintf("%s=%d", r.Name, r.Limit))
	}
	if strings.Join(got, " ") != "daily=100 burst=50 minute=20" {
		t.Errorf("rules %v", got)
	}
	if set, err := ParseRules(plan, nil, time.UTC); err != nil || set.Len() != 2 {
		t.Errorf("the plan alone: %v", err)
	}
	for _, tt := range []struct{ plan, rule, want string }{
		{`{"id": "pro", "rules": [{"algorithm": "fixed_window", "limit": 0, "period": "day"}]}`, "", "--plan: rules[0].limit"},
		{`{"id": "pro", "rules": []}`, "", "--plan: rules"},
		{plan, `{"algorithm": "fixed_window", "limit": 0, "period": "day"}`, "--rule 1: "},
	} {
		var rules []string
		if tt.rule != "" {
			rules = []string{tt.rule}
		}
		if _, err := ParseRules(tt.plan, rules, time.UTC); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseRules(%s, %q) = %v, want an error starting %q", tt.plan, tt.rule, err, tt.want)
		}
	}
}
