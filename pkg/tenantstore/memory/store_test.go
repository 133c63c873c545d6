package memory

import (
	"encoding/json"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/tenantstore"
	"github.com/edgelimit/edgelimit/pkg/tenantstore/tenantstoretest"
)

func TestConformance(t *testing.T) {
	tenantstoretest.Run(t, tenantstoretest.Config{
		New:  func(*testing.T) tenantstore.Store { return New() },
		Dump: dump,
	})
}

// dump renders everything the store holds, by inspecting its fields.
func dump(t *testing.T, s tenantstore.Store) []string {
	m := s.(*Store)
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	for id, e := range m.tenants {
		add(id)
		add(e.t)
		add(e.keys)
	}
	for hash, rec := range m.byHash {
		add(hash)
		add(rec)
	}
	add(m.ids)
	return out
}
