package headers_test

import (
	"net/http"
	"testing"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// discard is a ResponseWriter that keeps nothing but its header.
type discard struct{ h http.Header }

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) Write(b []byte) (int, error) { return len(b), nil }
func (w *discard) WriteHeader(int)             {}

// benchDecisions returns an allowed and a denied decision of threeRules at t0.
func benchDecisions(b *testing.B) (set *limiter.Set, allowed, denied limiter.Decision) {
	set = threeRules(b)
	states := set.NewStates()
	allowed = decideN(b, set, states, t0, 1)
	denied = decideN(b, set, states, t0, 20)
	if !allowed.Allowed || denied.Allowed {
		b.Fatal("unexpected decisions")
	}
	return set, allowed, denied
}

// BenchmarkWrite renders the fields of a 3-rule set (a bucket, a sliding window and a
// daily quota in Tokyo) into a header that already holds them, as a server reusing
// its header maps would, and into a new header each time.
func BenchmarkWrite(b *testing.B) {
	set, allowed, denied := benchDecisions(b)
	for _, bc := range []struct {
		name  string
		d     limiter.Decision
		fresh bool
	}{
		{"allowed", allowed, false},
		{"denied", denied, false},
		{"allowed_new_header", allowed, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := http.Header{}
			headers.Write(h, set, bc.d, t0)
			b.ReportAllocs()
			for b.Loop() {
				if bc.fresh {
					h = http.Header{}
				}
				headers.Write(h, set, bc.d, t0)
			}
		})
	}
}

// BenchmarkWriteDenied is a whole 429: the fields, Content-Type, Content-Length and the
// JSON body.
func BenchmarkWriteDenied(b *testing.B) {
	set, _, denied := benchDecisions(b)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		headers.WriteDenied(w, set, denied, t0)
	}
}
