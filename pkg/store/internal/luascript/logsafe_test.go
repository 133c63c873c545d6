package luascript

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// An impossible outcome names the rule and the field at fault, never the values,
// which are a counter's stored state.
func TestReadOutcomesQuotesNoValues(t *testing.T) {
	tests := []struct {
		name  string
		ints  []int64
		fault string
	}{
		{"allowed flag", []int64{7777771, 1, 0, 0, 0}, "allowed is neither 0 nor 1"},
		{"remaining", []int64{1, -7777771, 0, 0, 0}, "negative remaining"},
		{"retry after", []int64{0, 0, 0, -7777771, 0}, "negative retry after"},
		{"delay", []int64{1, 0, 0, 0, -7777771}, "negative delay"},
		{"retry after when allowed", []int64{1, 0, 0, 7777771, 0}, "retry after disagrees with allowed"},
		{"no retry after when denied", []int64{0, 7777771, 0, 0, 0}, "retry after disagrees with allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ints := append([]int64{1, 5, 0, 0, 0}, tt.ints...)
			err := ReadOutcomes(ints, make([]limiter.Outcome, 2))
			if !errors.Is(err, ErrMalformedReply) || strings.Contains(err.Error(), "7777771") ||
				!strings.Contains(err.Error(), "rule 1: "+tt.fault) {
				t.Errorf("err = %v, want ErrMalformedReply naming rule 1 and %q, no value", err, tt.fault)
			}
		})
	}
	if err := ReadOutcomes([]int64{1, 5, 0, 0, 0, 0, 0, 9, 3, 0}, make([]limiter.Outcome, 2)); err != nil {
		t.Errorf("a possible outcome: %v", err)
	}
}

func TestDecodeTenantQuotesNoBytes(t *testing.T) {
	const marker = "SECRET-MARKER"
	if _, err := DecodeTenant(`{"id": "acme", "rules": [{"algorithm": "token_bucket", "limit": 10, "period": "1s"}]}`, marker); err == nil || strings.Contains(err.Error(), marker) || !errors.Is(err, strconv.ErrSyntax) {
		t.Errorf("version %q: err = %v, want strconv.ErrSyntax without it", marker, err)
	}
	for _, doc := range []string{`{"id": ` + marker + `}`, `{"id": "acme", "rules": "` + marker + `"}`, `{"id": "` + marker} {
		if _, err := DecodeTenant(doc, "1"); err == nil || strings.Contains(err.Error(), marker) {
			t.Errorf("document %s: err = %v, want an error without the marker", doc, err)
		}
	}
}
