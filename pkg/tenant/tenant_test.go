package tenant

import (
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"a", true}, {"0", true}, {"acme-eu_1", true}, {strings.Repeat("a", 63), true},
		{"", false}, {strings.Repeat("a", 64), false}, {"-a", false}, {"_a", false},
		{"Acme", false}, {"a.b", false}, {"a:b", false}, {"a#b", false}, {"a b", false}, {"é", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestValidateBuilt(t *testing.T) {
	// A tenant built in Go with its defaults left empty is valid, and Normalized fills
	// them in.
	built := Tenant{ID: "acme", Rules: []limiter.Rule{{Algorithm: limiter.SlidingLog, Limit: 3, Period: limiter.Every(60e9)}}}
	if err := built.Validate(); err != nil {
		t.Fatal(err)
	}
	n := built.Normalized()
	if n.Timezone != "UTC" || n.FailMode != FailClosed || n.Status != StatusActive || n.Rules[0].Name != "sliding_log" || !n.Active() {
		t.Errorf("Normalized = %+v", n)
	}
	if built.Rules[0].Name != "" {
		t.Error("Normalized changed its receiver's rules")
	}
	if (Tenant{Status: StatusSuspended}).Active() {
		t.Error("a suspended tenant is active")
	}
}

func TestClone(t *testing.T) {
	orig := routedTenant(t)
	orig.Metadata = map[string]string{"plan": "pro"}
	c := orig.Clone()
	c.Rules[0].Limit = 1
	c.Routes[0].Rules[0].Limit = 1
	c.Routes[1].Method = "PUT"
	c.Metadata["plan"] = "free"
	if orig.Rules[0].Limit == 1 || orig.Routes[0].Rules[0].Limit == 1 || orig.Routes[1].Method == "PUT" || orig.Metadata["plan"] != "pro" {
		t.Error("changing a clone changed the original")
	}
}
