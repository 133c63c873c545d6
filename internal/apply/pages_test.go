package apply_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/apply"
)

// TestManyTenants: 250 tenants (three pages of GET /tenants) with several keys each
// export and apply as no write; a change of one tenant in the middle page is one
// write, and the diff names it alone.
func TestManyTenants(t *testing.T) {
	s := newServer(t)
	for i := range 250 {
		id := fmt.Sprintf("t%03d", i)
		s.putTenant(t, `{"id": "`+id+`", "metadata": {"n": "`+id+`"}, "rules": [{"algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 20}]}`)
		if i%50 == 0 {
			for k := range 3 {
				s.putKey(t, id, fmt.Sprintf("k%03dx%03d", i, k))
			}
		}
	}
	c := s.client(t)
	data, err := apply.Export(context.Background(), c, true)
	if err != nil {
		t.Fatal(err)
	}
	want := parse(t, "all.json", string(data))
	if len(want.Tenants) != 250 || len(want.Keys) != 15 {
		t.Fatalf("the export holds %d tenants and %d keys, want 250 and 15", len(want.Tenants), len(want.Keys))
	}
	var out bytes.Buffer
	if err := apply.Run(context.Background(), c, want, true, false, &out); err != nil || s.writes.Load() != 0 {
		t.Fatalf("apply of the export: %v, %d writes, output %q", err, s.writes.Load(), out.String())
	}
	changed := strings.Replace(string(data), `"n": "t149"`, `"n": "changed"`, 1)
	out.Reset()
	if err := apply.Run(context.Background(), c, parse(t, "all.json", changed), true, false, &out); err != nil {
		t.Fatal(err)
	}
	wantOut := "~ tenant t149: metadata.n \"t149\" -> \"changed\"\n0 to add, 1 to change, 0 to delete\napplied: 0 added, 1 changed, 0 deleted\n"
	if s.writes.Load() != 1 || out.String() != wantOut {
		t.Errorf("%d writes, output %q; want 1 and %q", s.writes.Load(), out.String(), wantOut)
	}
}
