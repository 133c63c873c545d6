//go:build race

package upstash

// raceEnabled is whether the race detector is on: TestUnknownKeysRunNoScript, 200,000
// requests, skips under it and runs in scripts/test.sh's step without it.
const raceEnabled = true
