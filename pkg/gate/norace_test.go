//go:build !race

package gate_test

// raceEnabled: see race_test.go.
const raceEnabled = false
