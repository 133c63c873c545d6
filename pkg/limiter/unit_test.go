package limiter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRuleUnit(t *testing.T) {
	tests := []struct {
		name, in   string
		want       CountUnit
		wantReason string
	}{
		{"tokens", `{"algorithm": "sliding_window", "limit": 100000, "period": "1m", "unit": "tokens"}`, UnitTokens, ""},
		{"default", `{"algorithm": "sliding_window", "limit": 10, "period": "1m"}`, UnitRequests, ""},
		{"unknown", `{"algorithm": "sliding_window", "limit": 10, "period": "1m", "unit": "bytes"}`, "", "the only unit"},
		{"not a string", `{"algorithm": "sliding_window", "limit": 10, "period": "1m", "unit": 1}`, "", "string"},
		{"on concurrency", `{"algorithm": "concurrency", "limit": 10, "unit": "tokens"}`, "", "requests in flight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Rule
			err := json.Unmarshal([]byte(tt.in), &r)
			if tt.wantReason == "" {
				if err != nil || r.Unit != tt.want {
					t.Fatalf("unit %q, %v; want %q", r.Unit, err, tt.want)
				}
				out, _ := json.Marshal(r)
				if strings.Contains(string(out), "unit") != (tt.want != "") {
					t.Errorf("round trip %s", out)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "unit" || !strings.Contains(fe.Reason, tt.wantReason) {
				t.Errorf("%v, want unit: ...%s...", err, tt.wantReason)
			}
		})
	}
}
