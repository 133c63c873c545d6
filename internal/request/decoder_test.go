package request_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/internal/request"
)

// keyHeaderCases are headers and multiValueHeaders members of REST events, in which
// the key header comes in one spelling or several, repeated, null or empty.
var keyHeaderCases = []struct{ headers, multi string }{
	{`{"Accept": "*/*", "X-Api-Key": "elk_a"}`, `null`},
	{`{"x-api-key": "elk_exact", "X-API-KEY": "elk_upper"}`, `{"x-api-key": ["elk_m"]}`},
	{`{"X-API-KEY": "elk_upper", "x-Api-key": "elk_mixed"}`, `null`},
	{`{"X-API-KEY": "elk_1", "X-API-KEY": "elk_2"}`, `null`},
	{`{"x-api-key": null, "X-API-KEY": "elk_upper"}`, `{"X-Api-Key": ["elk_m"]}`},
	{`{"X-API-KEY": null}`, `{"x-api-key": [], "X-API-KEY": ["elk_m"]}`},
	{`{"x-api-key": " "}`, `{"X-API-KEY": ["elk_m1"], "x-Api-key": ["elk_m2"]}`},
	{`{"Accept": "*/*"}`, `{"X-Api-Key": null, "X-Api-Key": [" elk_m ", "elk_2"]}`},
	{`{"X-Api-Key": "elk_a"}, "headers": null, "headers": {"x-api-key": "elk_b"}`, `null`},
	{`{"X-Api-Key": "elk_a"}, "headers": {"Accept": "*/*"}`, `{}`},
	{`null`, `{"Authorization": ["elk_auth"]}`},
	{`{"authorization": "elk_auth", "X-K` + "`" + `ey": "elk_tick"}`, `null`},
}

// An EventDecoder reads the key as decoding into the event's own type does, for every
// spelling of the key header, for names that no struct tag holds (decoded into maps),
// and from one decode to the next with the members it reuses.
func TestEventDecoderReadsTheKeyAsHeaderDoes(t *testing.T) {
	for _, name := range []string{"x-api-key", "X-Api-Key", "Authorization", "X-K`ey", "123"} {
		d := request.NewEventDecoder(name)
		for round := range 2 {
			for i, c := range keyHeaderCases {
				payload := []byte(fmt.Sprintf(`{"type": "REQUEST", "methodArn": "arn:%d", "httpMethod": "GET", "resource": "/r", "headers": %s, "multiValueHeaders": %s}`,
					i, c.headers, c.multi))
				want, werr := reference(payload, name)
				got, err := d.Decode(payload)
				if err != nil || werr != nil || got != want {
					t.Errorf("%s, case %d, round %d: got %+v (%v), want %+v (%v)", name, i, round, got, err, want, werr)
				}
			}
		}
	}
}

// Of the headers, only the key header's members are read: another of the wrong JSON
// type is skipped, the key header's is refused, and the error names it, never its value.
func TestEventDecoderReadsOnlyTheKeyHeader(t *testing.T) {
	d := request.NewEventDecoder("x-api-key")
	ev, err := d.Decode([]byte(`{"type": "REQUEST", "headers": {"Accept": 1, "x-api-key": "elk_a"}, "multiValueHeaders": {"Accept": "x"}}`))
	if err != nil || ev.Request.APIKey != "elk_a" {
		t.Errorf("other headers of the wrong type: %+v, %v", ev, err)
	}
	for _, payload := range []string{
		`{"type": "REQUEST", "headers": {"X-Api-Key": {"elk_secret": 1}}}`,
		`{"type": "REQUEST", "multiValueHeaders": {"x-api-key": "elk_secret"}}`,
		`{"type": "REQUEST", "multiValueHeaders": {"x-api-key": ["elk_secret", 1]}}`,
	} {
		_, err := d.Decode([]byte(payload))
		if err == nil || !strings.Contains(err.Error(), "has the wrong JSON type") || strings.Contains(err.Error(), "elk_secret") {
			t.Errorf("%s: %v, want an error naming the member", payload, err)
		}
	}
}

// An EventDecoder builds no string or map entry for the headers it does not read: a
// sample event, whose 8 headers come in both maps, costs at least 40 allocations
// fewer than decoded into maps (a key header whose name no struct tag holds).
func TestEventDecoderBuildsNoOtherHeaders(t *testing.T) {
	payload := sampleEvents(t)["rest-valid-key"]
	allocs := func(name string) float64 {
		d := request.NewEventDecoder(name)
		return testing.AllocsPerRun(100, func() {
			if _, err := d.Decode(payload); err != nil {
				t.Fatal(err)
			}
		})
	}
	keyed, maps := allocs("x-api-key"), allocs("x-api-key`")
	if keyed+40 > maps {
		t.Errorf("%v allocations a decode, %v into maps: want at least 40 fewer", keyed, maps)
	}
	t.Logf("%v allocations a decode, %v into maps", keyed, maps)
}

// An EventDecoder is safe for concurrent use: goroutines decoding different events
// with one decoder each read their own event's key (go test -race checks the rest).
func TestEventDecoderConcurrentDecodes(t *testing.T) {
	d := request.NewEventDecoder("x-api-key")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				c := keyHeaderCases[(g+i)%len(keyHeaderCases)]
				payload := []byte(fmt.Sprintf(`{"type": "REQUEST", "methodArn": "arn:%d", "headers": %s, "multiValueHeaders": %s}`, g, c.headers, c.multi))
				want, _ := reference(payload, "x-api-key")
				if got, err := d.Decode(payload); err != nil || got != want {
					t.Errorf("goroutine %d, decode %d: got %+v (%v), want %+v", g, i, got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
