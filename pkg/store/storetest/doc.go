// Package storetest is the conformance suite of both storage contracts: every
// store.Counters runs RunCounters unchanged, and every store.Tenants runs RunTenants
// unchanged, against the real service; a store is done when its suite passes.
//
// For counters the reference is pkg/limiter itself: every trace is decided by the
// Counters and by limiter.Set.Decide on states held in the test, and the two must give
// the same Decision, field by field, for every request. BoundsCases are the traces at
// the rule bounds (limits, bursts and costs near limiter.MaxLimit, instants up to
// limiter.MaxTime), which pkg/limiter also checks against a math/big reference. Time is
// injected (traces carry their instants, including clock skew), so the suite never
// sleeps. Exactness and ExactnessInProcess check that instances sharing a store admit
// no more than one serial limiter would (Processes and MaybeChild run them as separate
// processes).
//
// For tenants the suite covers conditional writes (including 20 concurrent replaces of
// one version, of which exactly one may win), pagination, key records (lookup by hash,
// revocation, near-miss keys, unknown hashes), checks through TenantsConfig.Dump
// that no raw key reaches storage.
package storetest
