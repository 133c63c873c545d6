package gate

import (
	"context"
	"errors"
	"testing"
	"time"
)

type budgetKey struct{}

// TestBudget: the lazy budget has its deadline from the start, ends at it once
// something waits on it (Done, Err), passes its parent's values and cancellation
// through, and cancels the contexts made from it at its deadline.
func TestBudget(t *testing.T) {
	parent := context.WithValue(context.Background(), budgetKey{}, "v")
	before := time.Now()
	b := newBudget(parent, 30*time.Millisecond)
	defer b.stop()
	if d, ok := b.Deadline(); !ok || d.Before(before.Add(30*time.Millisecond)) || d.After(time.Now().Add(30*time.Millisecond)) {
		t.Fatalf("deadline %v, %v: want 30 ms after newBudget", d, ok)
	}
	if b.Value(budgetKey{}) != "v" {
		t.Fatal("the parent's value is lost")
	}
	child, cancel := context.WithTimeout(b, time.Hour)
	defer cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a context made from the budget outlived its deadline")
	}
	if !errors.Is(b.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("errors %v, %v: want the deadline's", b.Err(), child.Err())
	}
}

// TestBudgetFollowsItsParent: a parent cancelled, or with an earlier deadline, ends
// the budget; a budget stopped before anything waited on it answers its parent's.
func TestBudgetFollowsItsParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	b := newBudget(parent, time.Hour)
	defer b.stop()
	cancel()
	<-b.Done()
	if !errors.Is(b.Err(), context.Canceled) {
		t.Fatalf("%v: want the parent's cancellation", b.Err())
	}
	early, cancelEarly := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancelEarly()
	want, _ := early.Deadline()
	if d, _ := newBudget(early, time.Hour).Deadline(); !d.Equal(want) {
		t.Fatalf("deadline %v under a parent due at %v", d, want)
	}
	unused := newBudget(context.Background(), time.Hour)
	unused.stop()
	if unused.Done() != nil || unused.Err() != nil {
		t.Fatal("a budget stopped unused should answer as its parent, context.Background")
	}
}
