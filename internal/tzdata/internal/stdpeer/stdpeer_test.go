package stdpeer

import (
	"os"
	"testing"
	"time"
	_ "time/tzdata"
)

// benchZone is internal/tzdata's.
const benchZone = "America/New_York"

// platformSources are where time.LoadLocation looks before time/tzdata on Unix.
var platformSources = []string{"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}

// BenchmarkFirstLookup/time-tzdata is time.LoadLocation where the system has no zone
// database, as on Lambda's provided.al2023: it tries the platform's directories, then
// reads the zone out of time/tzdata's zip (every lookup is a first one). Where the
// system has the zone it skips, as time/tzdata would not be reached; on Linux, run it
// with the directory hidden:
//
//	unshare -m sh -c 'mount -t tmpfs none /usr/share/zoneinfo && go test -run - -bench FirstLookup ./internal/tzdata/...'
func BenchmarkFirstLookup(b *testing.B) {
	b.Run("time-tzdata", func(b *testing.B) {
		if os.Getenv("ZONEINFO") != "" {
			b.Skip("ZONEINFO is set: time.LoadLocation reads it before time/tzdata")
		}
		for _, dir := range platformSources {
			if _, err := os.Stat(dir + benchZone); err == nil {
				b.Skipf("the system has %s%s: time.LoadLocation would not reach time/tzdata", dir, benchZone)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := time.LoadLocation(benchZone); err != nil {
				b.Fatal(err)
			}
		}
	})
}
