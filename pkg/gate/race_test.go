//go:build race

package gate_test

// raceEnabled: the race detector slows every call several times over, so tests whose
// assertions hold a latency budget skip under it (scripts/test.sh runs them again
// without it).
const raceEnabled = true
