package memory

import (
	"encoding/json"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func TestTenantsConformance(t *testing.T) {
	storetest.RunTenants(t, storetest.TenantsConfig{
		New:  func(*testing.T) store.Tenants { return NewTenants() },
		Dump: dump,
	})
}

// dump renders everything the store holds, by inspecting its fields.
func dump(t *testing.T, s store.Tenants) []string {
	m := s.(*Tenants)
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
