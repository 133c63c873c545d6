package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// figure formats v of unit for the report: times in ns, us or ms, rates with
// thousands separators, counts and other units with up to three significant digits.
func figure(v float64, unit string) string {
	switch unit {
	case nsPerOp:
		return duration(v)
	case perSecond:
		return thousands(math.Round(v)) + " decisions/s"
	case allocsPerOp:
		return thousands(math.Round(v)) + " allocs"
	case bytesPerOp:
		return thousands(math.Round(v)) + " B"
	}
	return trim(v) + " " + strings.TrimSuffix(unit, "/decision")
}

// duration formats nanoseconds.
func duration(ns float64) string {
	switch {
	case ns >= 1e6:
		return millis(ns / 1e6)
	case ns >= 1e3:
		return trim(ns/1e3) + " us"
	}
	return trim(ns) + " ns"
}

func millis(ms float64) string { return trim(ms) + " ms" }

func megabytes(n int64) string { return strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64) + " MB" }

// times formats a ratio.
func times(r float64) string {
	if r > 0 && r < 0.1 {
		return strconv.FormatFloat(r, 'g', 3, 64) + "x"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "x"
}

// trim formats v with three significant digits (at least its integer part).
func trim(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return thousands(math.Round(v))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1 || a == 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// english prints numbers as the report shows them, with commas between thousands.
var english = message.NewPrinter(language.English)

// thousands formats an integral v with commas between thousands.
func thousands(v float64) string { return english.Sprintf("%.0f", v) }

// dollars formats a price per million decisions.
func dollars(v float64) string { return fmt.Sprintf("$%.2f", v) }
