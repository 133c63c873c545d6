//go:build race

package hotcounter_test

// raceEnabled: the race detector slows the simulation tenfold and the load's real-time
// figures with it, so under it the simulation plays 10 s instead of 60 s and leaves the
// docs' table alone, and the load on DynamoDB Local is skipped (scripts/test.sh runs
// both again without -race).
const raceEnabled = true
