package gate

import (
	"context"
	"sync"
	"time"
)

// budget is the latency budget of one Check: a context.Context with the budget's
// deadline whose timer starts only when something asks for Done, Err or a Value. A
// warm decision, answered from the caches and an InProcess store, never does, and so
// never starts or stops a runtime timer; a store call that waits on it (a cache miss,
// a store over the network) gets the same context.WithDeadline as before.
type budget struct {
	parent   context.Context
	deadline time.Time
	once     sync.Once
	timed    context.Context
	cancel   context.CancelFunc
}

// newBudget returns the budget of d from now, under parent.
func newBudget(parent context.Context, d time.Duration) *budget {
	return &budget{parent: parent, deadline: time.Now().Add(d)}
}

func (b *budget) start() { b.timed, b.cancel = context.WithDeadline(b.parent, b.deadline) }

// Deadline is the budget's, or parent's when that comes first.
func (b *budget) Deadline() (time.Time, bool) {
	if d, ok := b.parent.Deadline(); ok && d.Before(b.deadline) {
		return d, true
	}
	return b.deadline, true
}

// Done starts the budget's timer, once, and returns its channel.
func (b *budget) Done() <-chan struct{} { b.once.Do(b.start); return b.timed.Done() }

// Err starts the budget's timer, once, and returns its error.
func (b *budget) Err() error { b.once.Do(b.start); return b.timed.Err() }

// Value starts the budget's timer, once, so that a context made from this one finds the
// timer's (as context.WithCancel looks its parent up by a value), and returns key's
// value.
func (b *budget) Value(key any) any { b.once.Do(b.start); return b.timed.Value(key) }

// stop ends the budget: its timer is stopped if it started, and it never starts after.
func (b *budget) stop() {
	b.once.Do(func() { b.timed, b.cancel = b.parent, func() {} })
	b.cancel()
}
