//go:build !race

package hotcounter_test

const raceEnabled = false
