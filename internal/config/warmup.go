package config

import (
	"context"
	"fmt"
	"time"
)

// warmUpTimeout bounds WarmUp: a store that is down delays a cold start by this much
// at most, and then fails over as it would have at the first decision.
const warmUpTimeout = time.Second

// WarmUp opens the connection the stores' client will use, so that the first decision
// does not pay for DNS, TCP and TLS: the authorizer calls it during its init. It sends
// nothing billable:
//
//   - DynamoDB: a GET of the endpoint's root, which DynamoDB answers "healthy: ..."
//     without an API call (no read unit, no IAM action), over the SDK client's own
//     HTTP client and so into its connection pool;
//   - Upstash: a PING, one command (Upstash bills commands: $0.2 per 100,000, so two
//     millionths of a dollar per cold start);
//   - memory: nothing.
//
// An error (the store down, or slower than a second) is for the caller to log: it
// must not fail a cold start, since the store may be back by the first decision,
// which then fails over by the tenant's fail mode if it is not.
func (s *Stores) WarmUp(ctx context.Context) error {
	if s.warmUp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, warmUpTimeout)
	defer cancel()
	if err := s.warmUp(ctx); err != nil {
		return fmt.Errorf("config: warming up the store's connection: %w", err)
	}
	return nil
}
