package limiter

import "time"

// Time bounds. Instants are int64 microseconds since the Unix epoch; MaxTime keeps
// every instant a bucket can reach (now plus its fill time) below 2^53.
const (
	// MaxTime is the latest instant a decision accepts: 2200-01-01T00:00:00Z.
	MaxTime         int64 = 7_258_118_400_000_000
	microsPerSecond int64 = 1_000_000
)

// Micros converts t to microseconds since the Unix epoch, the unit of this package.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// Time converts microseconds since the Unix epoch to a time.Time in UTC.
func Time(us int64) time.Time { return time.UnixMicro(us).UTC() }

// CeilSeconds converts a span of microseconds to whole seconds, rounding up, as
// Retry-After wants it.
func CeilSeconds(us int64) int64 { return ceilDiv(us, microsPerSecond) }

// CeilMillis converts a span of microseconds to whole milliseconds, rounding up.
func CeilMillis(us int64) int64 { return ceilDiv(us, 1000) }

// ceilDiv returns ceil(a/b) for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b > 0 {
		q++
	}
	return q
}
