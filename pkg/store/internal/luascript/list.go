package luascript

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// List returns tenants in order of id: ZRANGE BYLEX over the ids, then the tenants in
// one round trip (a pipeline of HMGETs). A tenant deleted between the two is left out.
func (s *Tenants) List(ctx context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error) {
	ids, next, err := s.page(ctx, s.l.IDs(), limit, pageToken)
	if err != nil {
		return nil, "", err
	}
	out, err := fetch(s, ctx, ids, s.l.Tenant, DecodeTenant)
	return out, next, err
}

// page returns the ids of the page that limit and pageToken ask for among the sorted
// set idsKey, and the next page's token, as store.Tenants.List defines them.
func (s *Tenants) page(ctx context.Context, idsKey string, limit int, pageToken string) ([]string, string, error) {
	after, err := store.ParsePageToken(pageToken)
	if err != nil {
		return nil, "", err
	}
	limit = store.ListLimit(limit)
	start := "-"
	if after != "" {
		start = "(" + after
	}
	ids, err := s.c.RangeByLex(ctx, idsKey, start, limit+1)
	if err != nil {
		return nil, "", s.fail("list", err)
	}
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = store.PageToken(ids[limit-1])
	}
	return ids, next, nil
}

// fetch reads the hashes (doc and version) of ids, named by keyOf, in one round trip,
// and decodes them, leaving out those deleted meanwhile.
func fetch[T any](s *Tenants, ctx context.Context, ids []string, keyOf func(string) string, decode func(doc, version string) (T, error)) ([]T, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = keyOf(id)
	}
	stored, err := s.c.Tenants(ctx, keys)
	if err != nil {
		return nil, s.fail("list", err)
	}
	out := make([]T, 0, len(ids))
	for i, st := range stored {
		if !st.Found {
			continue
		}
		v, err := decode(st.Doc, st.Version)
		if err != nil {
			return nil, s.fail("list "+ids[i], err)
		}
		out = append(out, v)
	}
	return out, nil
}
