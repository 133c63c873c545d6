package tenant

import (
	"errors"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// CheckRules runs check on every rule of t, the tenant-wide rules first, then each
// route's, then each override's, and returns the first error with its field placed
// under the rule's path ("rules[0].limit", "routes[1].rules[0].limit",
// "overrides[0].rules[0].limit"). It is how a counter store that cannot
// honour every valid rule (store.RuleChecker) refuses a tenant when it is written.
func (t Tenant) CheckRules(check func(limiter.Rule) error) error {
	if err := checkRules("rules", t.Rules, check); err != nil {
		return err
	}
	for i, r := range t.Routes {
		if err := checkRules("routes["+strconv.Itoa(i)+"].rules", r.Rules, check); err != nil {
			return err
		}
	}
	for i, o := range t.Overrides {
		if err := checkRules("overrides["+strconv.Itoa(i)+"].rules", o.Rules, check); err != nil {
			return err
		}
	}
	return nil
}

func checkRules(path string, rules []limiter.Rule, check func(limiter.Rule) error) error {
	for i, r := range rules {
		err := check(r)
		if err == nil {
			continue
		}
		at := path + "[" + strconv.Itoa(i) + "]"
		if _, ok := errors.AsType[*limiter.FieldError](err); !ok {
			return &limiter.FieldError{Field: at, Reason: err.Error()}
		}
		return prefixed(at, err)
	}
	return nil
}
