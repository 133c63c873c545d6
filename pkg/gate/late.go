package gate

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// LateReplyBound is how long past the latency budget a counter store's Decide may run
// on after the fail mode answered: a reply within it that allowed the request is
// refunded at once (store.Settler), so the request the fail mode answered counts
// nothing; a later one is abandoned, and what it counted stands.
const LateReplyBound = 2 * time.Second

// InProcess is the capability of a store.Counters whose Decide runs in the process,
// without I/O, and so cannot reply after the latency budget (pkg/store/memory): the
// gate calls its Decide on the request's goroutine, under the request's context,
// without the goroutine, second deadline and refund of a store that may reply late.
type InProcess interface {
	store.Counters
	// InProcess marks the capability; it does nothing.
	InProcess()
}

// storeDecide decides the checks of res in one store call at cost: on the caller's
// goroutine for an InProcess store (decideHere), else apart from the request
// (decideApart). ok is false when the budget ran out first.
func (g *Gate) storeDecide(ctx context.Context, res *Result, cost int64) (outs [store.MaxCounters]limiter.Decision, ok bool, err error) {
	if s, in := g.counters.(InProcess); in {
		outs, err = decideHere(ctx, s, res, cost)
		return outs, true, err
	}
	c := &storeCall{n: len(res.Checks), now: res.Now, cost: cost, done: make(chan struct{}, 1)}
	c.due, _ = ctx.Deadline()
	for i, ch := range res.Checks {
		c.cs[i] = store.Counter{Key: ch.Key, Set: ch.Set}
	}
	if !g.decideApart(ctx, c) {
		return outs, false, nil
	}
	return c.outs, true, c.err
}

// decideHere decides the checks of res on s at cost, on the caller's goroutine: one
// check through store.DecideOne, which allocates nothing on the memory store.
func decideHere(ctx context.Context, s store.Counters, res *Result, cost int64) (outs [store.MaxCounters]limiter.Decision, err error) {
	if len(res.Checks) == 1 {
		c := res.Checks[0]
		outs[0], err = store.DecideOne(ctx, s, c.Key, c.Set, res.Now, cost)
		return outs, err
	}
	cs := make([]store.Counter, len(res.Checks))
	for i, ch := range res.Checks {
		cs[i] = store.Counter{Key: ch.Key, Set: ch.Set}
	}
	got := make([]limiter.Decision, len(cs))
	err = s.Decide(ctx, cs, res.Now, cost, got)
	copy(outs[:], got)
	return outs, err
}

// storeCall is one Decide run apart from the request that started it: it holds copies
// of the counters and its own outcomes, and nothing of the request, so that it can
// finish after the request was answered.
type storeCall struct {
	cs      [store.MaxCounters]store.Counter
	outs    [store.MaxCounters]limiter.Decision
	n       int
	now     int64
	cost    int64
	err     error
	due     time.Time     // the budget's deadline, which the store plans its retries by
	claimed atomic.Bool   // set by whoever reads the reply first: the request, or the refund
	done    chan struct{} // buffered: the reply is in
}

// decideApart runs c's Decide on its own goroutine, under the longer deadline, and
// waits for it until budget is done. ok is false when the budget ran out first: the
// call then refunds its own reply if it allowed. The call's context holds no value of
// the request's.
func (g *Gate) decideApart(budget context.Context, c *storeCall) (ok bool) {
	go g.runApart(c)
	select {
	case <-c.done:
		return true
	case <-budget.Done():
		if c.claimed.CompareAndSwap(false, true) {
			return false
		}
		<-c.done // the reply is already in
		return true
	}
}

func (g *Gate) runApart(c *storeCall) {
	ctx, cancel := context.WithTimeout(context.Background(), g.budget+LateReplyBound)
	defer cancel()
	ctx = dueCtx{ctx, c.due}
	c.err = g.counters.Decide(ctx, c.cs[:c.n], c.now, c.cost, c.outs[:c.n])
	if c.claimed.CompareAndSwap(false, true) {
		c.done <- struct{}{}
		return
	}
	g.refundLate(ctx, c)
}

// refundLate gives back what a late reply counted: when it allowed, the whole cost of
// every counter, settled at once under a fresh nonce. Without a store.Settler it
// stands.
func (g *Gate) refundLate(ctx context.Context, c *storeCall) {
	settler, ok := g.counters.(store.Settler)
	if c.err != nil || !ok {
		return
	}
	if d, _ := limiter.Join(c.outs[:c.n]); !d.Allowed {
		return // a denial counts nothing
	}
	var expires int64
	for _, cnt := range c.cs[:c.n] {
		expires = max(expires, counterExpiry(cnt.Set, c.now))
	}
	s := store.Settlement{ID: newNonce(), At: c.now, Now: max(g.now(), c.now), Expires: expires, Delta: -c.cost}
	settler.Settle(ctx, c.cs[:c.n], s) //nolint:errcheck // a failed refund leaves the count as a late reply without Settler does
}

// dueCtx is the store call's context: it is done at the second deadline, but its
// Deadline is the budget's, when the answer is due, so that a store that plans its
// retries or waits by the deadline (pkg/hotcounter's throttle backoff, a dial) plans
// them within the budget as before, while a reply already under way is still read.
type dueCtx struct {
	context.Context
	due time.Time
}

// Deadline returns the budget's deadline.
func (c dueCtx) Deadline() (time.Time, bool) { return c.due, !c.due.IsZero() }
