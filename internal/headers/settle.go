package headers

import (
	"errors"
	"strconv"
	"strings"
)

// SettleCost is the response header from which a trusted layer (pkg/middleware,
// `edgelimit dev --upstream`) settles a request's reservation at its real cost; it is
// removed before the client sees the response.
const SettleCost = "X-RateLimit-Settle-Cost"

// ErrSettleCost is ParseSettleCost's error for a value that is not a cost.
var ErrSettleCost = errors.New(SettleCost + " is not a cost (a decimal integer, 0 to 10^12)")

// maxSettleCost is the largest cost a settle takes (tenant.MaxCost).
const maxSettleCost = 1_000_000_000_000

// ParseSettleCost reads a SettleCost value: a decimal integer from 0 to 10^12, with
// whitespace around it ignored.
func ParseSettleCost(v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 || n > maxSettleCost {
		return 0, ErrSettleCost
	}
	return n, nil
}
