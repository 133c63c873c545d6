//go:build !race

package prodtest

const raceEnabled = false
