package headers_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// t0 is Monday 2026-11-30 12:00:00 UTC, 21:00 in Tokyo: a minute-aligned instant
// three hours before Tokyo's midnight.
var t0 = limiter.Micros(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))

// t0s is t0 in epoch seconds.
var t0s = t0 / 1_000_000

func mustSet(tb testing.TB, zone *limiter.Zone, rules ...string) *limiter.Set {
	tb.Helper()
	parsed := make([]limiter.Rule, len(rules))
	for i, js := range rules {
		r, err := limiter.ParseRule([]byte(js))
		if err != nil {
			tb.Fatalf("ParseRule(%s): %v", js, err)
		}
		parsed[i] = r
	}
	s, err := limiter.NewSet(parsed, zone)
	if err != nil {
		tb.Fatalf("NewSet: %v", err)
	}
	return s
}

func mustZone(tb testing.TB, name string) *limiter.Zone {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatal(err)
	}
	return limiter.FixedZone(loc)
}

// fields is what Write rendered, by field; "" means absent.
type fields struct {
	retryAfter, limit, remaining, reset, policy, rateLimit string
}

func read(h http.Header) fields {
	return fields{
		retryAfter: h.Get("Retry-After"),
		limit:      h.Get("X-RateLimit-Limit"),
		remaining:  h.Get("X-RateLimit-Remaining"),
		reset:      h.Get("X-RateLimit-Reset"),
		policy:     h.Get("RateLimit-Policy"),
		rateLimit:  h.Get("RateLimit"),
	}
}

// The grammar of the two draft fields: a Structured Fields List (RFC 9651) of Items
// whose bare item is a String, with Integer parameters, members joined by ", ".
var (
	sfItem = `"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"(?:;[a-z*][a-z0-9_.*-]*=-?[0-9]{1,15})*`
	sfList = regexp.MustCompile(`^` + sfItem + `(?:, ` + sfItem + `)*$`)
)

// checkSF fails unless the draft fields of h are well-formed Structured Fields Lists.
func checkSF(t *testing.T, h http.Header) {
	t.Helper()
	for _, name := range []string{"RateLimit-Policy", "RateLimit"} {
		if v := h.Values(name); len(v) != 1 || !sfList.MatchString(v[0]) {
			t.Errorf("%s: %q is not one Structured Fields List line", name, v)
		}
	}
}
