package luascript

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// List returns tenants in order of id: ZRANGE BYLEX over the ids, then the tenants in
// one round trip (a pipeline of HMGETs). A tenant deleted between the two is left out.
func (s *Tenants) List(ctx context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error) {
	after, err := store.ParsePageToken(pageToken)
	if err != nil {
		return nil, "", err
	}
	limit = store.ListLimit(limit)
	start := "-"
	if after != "" {
		start = "(" + after
	}
	ids, err := s.c.RangeByLex(ctx, s.l.IDs(), start, limit+1)
	if err != nil {
		return nil, "", s.fail("list", err)
	}
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = store.PageToken(ids[limit-1])
	}
	out, err := s.fetch(ctx, ids)
	return out, next, err
}

// fetch reads the tenants ids, leaving out those deleted meanwhile.
func (s *Tenants) fetch(ctx context.Context, ids []string) ([]tenant.Tenant, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = s.l.Tenant(id)
	}
	stored, err := s.c.Tenants(ctx, keys)
	if err != nil {
		return nil, s.fail("list", err)
	}
	out := make([]tenant.Tenant, 0, len(ids))
	for i, st := range stored {
		if !st.Found {
			continue
		}
		t, err := DecodeTenant(st.Doc, st.Version)
		if err != nil {
			return nil, s.fail("list "+ids[i], err)
		}
		out = append(out, t)
	}
	return out, nil
}
