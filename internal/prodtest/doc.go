// Package prodtest runs edgelimit as production runs it, on the real services that
// `make test` starts: several OS processes (this package's test binary, re-executed),
// each wiring its stores and gate through internal/config from an environment as a
// Lambda function does, on DynamoDB Local behind the throttling proxy of
// internal/testenv/ddbthrottle, each request within production's 100 ms budget on an
// advancing clock. It holds no code of its own besides tests.
//
// TestHotTenantThroughThreeKeys is one tenant's tenant-scope token bucket taking three
// times its rate through three API keys, beside the same run through one key.
// TestProductionLike adds a clock skew per process, idle gaps longer than the budget
// and than the HTTP idle timeout, and a flood of random well-formed keys.
package prodtest
