package gate

import (
	"math"
	"runtime"
)

// StopEpochPolling keeps g's decisions from checking the epoch, so that a test makes
// every check itself.
func StopEpochPolling(g *Gate) { g.epoch.next.Store(math.MaxInt64) }

// WaitEpochPoll returns once no epoch check that a decision started is running: a
// decision that finds one running starts none (the next decision past the TTL will).
func WaitEpochPoll(g *Gate) {
	for g.epoch.running.Load() {
		runtime.Gosched()
	}
}
