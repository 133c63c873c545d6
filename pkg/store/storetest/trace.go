package storetest

import (
	"math/rand/v2"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Request is one request of a trace: an instant and a cost.
type Request struct {
	At, Cost int64
}

// Pace sets a trace's gaps.
type Pace int

// The paces.
const (
	// Burst: a third of the requests at the previous instant, most within 50ms,
	// some seconds apart, and a few steps backwards in time (clock skew).
	Burst Pace = iota
	// Hourly: gaps of up to two hours, for calendar windows.
	Hourly
)

// Trace returns n requests of costs 1 to maxCost from a fixed start instant.
func Trace(seed uint64, n int, maxCost int64, pace Pace) []Request {
	start := limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	return TraceFrom(start, seed, n, maxCost, pace)
}

// TraceFrom returns n requests of costs 1 to maxCost from start, deterministic in seed.
func TraceFrom(start int64, seed uint64, n int, maxCost int64, pace Pace) []Request {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]Request, n)
	at := start
	for i := range out {
		at += gap(rng, pace)
		out[i] = Request{At: at, Cost: 1 + rng.Int64N(maxCost)}
		if pace == Burst && rng.IntN(25) == 0 {
			out[i].At -= rng.Int64N(2_000_000) // a caller whose clock is behind
		}
	}
	return out
}

func gap(rng *rand.Rand, pace Pace) int64 {
	if pace == Hourly {
		return rng.Int64N(2 * 3600 * 1_000_000)
	}
	switch rng.IntN(10) {
	case 0, 1, 2:
		return 0
	case 3, 4, 5, 6:
		return rng.Int64N(50_000)
	case 7, 8:
		return rng.Int64N(1_000_000)
	}
	return rng.Int64N(5_000_000)
}
