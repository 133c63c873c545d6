// Package storetest is the conformance suite every backends.Store runs unchanged: a
// backend is done when Run passes against the real service.
//
// The reference is pkg/limiter itself: every trace is decided by the Store and by
// limiter.Set.Decide on states held in the test, and the two must give the same
// Decision, field by field, for every request. Time is injected (traces carry their
// instants, including clock skew), so the suite never sleeps.
package storetest
