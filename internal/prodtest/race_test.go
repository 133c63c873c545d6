//go:build race

package prodtest

// raceEnabled: the race detector slows the children tenfold, and their real-time
// figures with them, so the runs are skipped under it (scripts/test.sh runs them
// again without -race).
const raceEnabled = true
