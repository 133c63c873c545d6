package simulate

import (
	"fmt"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// ParseRules reads the rules of `edgelimit simulate`, one JSON object each, as the set
// they form in loc's calendar.
func ParseRules(rules []string, loc *time.Location) (*limiter.Set, error) {
	parsed := make([]limiter.Rule, len(rules))
	for i, js := range rules {
		var err error
		if parsed[i], err = limiter.ParseRule([]byte(js)); err != nil {
			return nil, fmt.Errorf("--rule %d: %v", i+1, err)
		}
	}
	return limiter.NewSet(parsed, limiter.FixedZone(loc))
}
