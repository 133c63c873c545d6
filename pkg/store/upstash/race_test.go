//go:build race

package upstash

// raceEnabled: under the race detector sync.Pool drops a share of what is put back, so
// allocation counts say nothing; TestDecideAllocations skips (scripts/test.sh runs it
// again without -race).
const raceEnabled = true
