package simulate

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// ParseRules reads the rules of `edgelimit simulate` as the set they form in loc's
// calendar: the --rule flags, one JSON object each, after the tenant-wide rules of plan
// unless it is "" (`--plan JSON`: a plan as the admin API takes it, tenant.DecodePlan;
// its routes are not simulated). The flags' rules add to the plan's and replace its
// rule of the same name, as a tenant's rules do (tenant.MergeRules); without a plan
// they are the set, and there must be one. Errors name the plan ("--plan:
// rules[0].limit ...") or number the flags from 1 ("--rule 2: name = ..."), whether a
// rule is wrong on its own or among the flags' rules.
func ParseRules(plan string, rules []string, loc *time.Location) (*limiter.Set, error) {
	var base []limiter.Rule
	if plan != "" {
		p, err := tenant.DecodePlan([]byte(plan))
		if err != nil {
			return nil, fmt.Errorf("--plan: %v", err)
		}
		base = p.Rules
	}
	own := make([]limiter.Rule, len(rules))
	for i, js := range rules {
		var err error
		if own[i], err = limiter.ParseRule([]byte(js)); err != nil {
			return nil, fmt.Errorf("--rule %d: %v", i+1, err) // numbered from 1, as the flags are
		}
	}
	if plan == "" || len(own) > 0 {
		if _, err := limiter.NewSet(own, nil); err != nil {
			return nil, numberFromOne(err)
		}
	}
	set, err := limiter.NewSet(tenant.MergeRules(base, own), limiter.FixedZone(loc))
	if err != nil {
		return nil, fmt.Errorf("--plan with the --rule flags: %v", err)
	}
	return set, nil
}

// setIndex is the rule index that limiter.NewSet's field paths start with, from 0.
var setIndex = regexp.MustCompile(`^rules\[(\d+)\]\.?`)

// numberFromOne turns a set error about "rules[1].name" into one about "--rule 2".
func numberFromOne(err error) error {
	var fe *limiter.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	m := setIndex.FindStringSubmatch(fe.Field)
	if m == nil {
		return err
	}
	i, _ := strconv.Atoi(m[1]) // \d+ that NewSet wrote from an int
	rest := *fe
	rest.Field = fe.Field[len(m[0]):]
	if rest.Field == "" {
		return fmt.Errorf("--rule %d: %s", i+1, fe.Reason)
	}
	return fmt.Errorf("--rule %d: %v", i+1, &rest)
}
