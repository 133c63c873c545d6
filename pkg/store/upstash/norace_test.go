//go:build !race

package upstash

// raceEnabled: see race_test.go.
const raceEnabled = false
