package readme

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestZoneChangesAtDocumented: docs/reference.md says what `zone_changes[].at` holds,
// and its example is what a stored tenant really carries (a JSON integer of
// microseconds that tenant.Decode reads back).
func TestZoneChangesAtDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(data)), " ")
	if !strings.Contains(readme, "`zone_changes[].at` is an integer, microseconds since the Unix epoch") {
		t.Fatal("docs/reference.md does not say what zone_changes[].at holds (an integer of microseconds since the Unix epoch)")
	}
	m := regexp.MustCompile("`(\\{\"at\": [^`]*\\})`").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("docs/reference.md has no zone_changes example")
	}
	var example tenant.ZoneChange
	dec := json.NewDecoder(strings.NewReader(m[1]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&example); err != nil {
		t.Fatalf("the zone change %s of docs/reference.md: %v", m[1], err)
	}
	encoded, err := json.Marshal(example)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := json.Unmarshal(encoded, &generic); err != nil {
		t.Fatal(err)
	}
	if _, isNumber := generic["at"].(float64); !isNumber {
		t.Errorf("pkg/tenant encodes at as %T (%s): docs/reference.md says an integer", generic["at"], encoded)
	}
	doc := `{"id": "z", "timezone": "Asia/Tokyo", "rules": [{"algorithm": "token_bucket", "limit": 1, "period": "1s"}], "zone_changes": [` + m[1] + `]}`
	got, err := tenant.Decode([]byte(doc))
	if err != nil || len(got.ZoneChanges) != 1 || got.ZoneChanges[0] != example {
		t.Errorf("a tenant with the zone change of docs/reference.md: %+v, %v", got.ZoneChanges, err)
	}
	if example.At%1_000_000 != 0 || example.At < 1e15 {
		t.Errorf("the example's at %d does not look like whole seconds in microseconds", example.At)
	}
}
