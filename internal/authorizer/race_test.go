//go:build race

package authorizer_test

const raceEnabled = true
