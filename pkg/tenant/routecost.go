package tenant

import (
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// validateCost checks r.Cost: 0 (the default) or 1 to MaxCost, and admitted by every
// rule a request of the route meets, its own and the tenant-wide ones (tenant), as
// limiter.Set.CheckCost admits a request's cost.
func (r Route) validateCost(tenant []limiter.Rule) error {
	if r.Cost == 0 {
		return nil
	}
	value := strconv.FormatInt(r.Cost, 10)
	if r.Cost < 1 || r.Cost > MaxCost {
		return &limiter.FieldError{Field: "cost", Value: value, Reason: fmt.Sprintf("must be 1 to %d (default %d)", int64(MaxCost), DefaultCost)}
	}
	for _, list := range [][]limiter.Rule{r.Rules, tenant} {
		set, err := limiter.NewSet(list, nil)
		if err != nil || set.Len() == 0 {
			continue // the rules' own errors are reported by their fields
		}
		if err := set.CheckCost(r.Cost); err != nil {
			return &limiter.FieldError{Field: "cost", Value: value, Reason: "no request of the route could be admitted: " + err.Error()}
		}
	}
	return nil
}
