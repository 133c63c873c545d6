package luascript

import (
	"context"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// List returns tenants in order of id: ZRANGE BYLEX over the ids, then the tenants in
// one round trip (a pipeline of HMGETs). A tenant deleted between the two is left out.
func (s *Tenants) List(ctx context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error) {
	return list(s, ctx, s.l.IDs(), limit, pageToken, s.l.Tenant, DecodeTenant)
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

// list returns the page that limit and pageToken ask for among the sorted set idsKey
// (page), and the next page's token: the hashes (doc and version) of its ids, named by
// keyOf, read in one round trip and decoded, leaving out those deleted meanwhile.
func list[T any](s *Tenants, ctx context.Context, idsKey string, limit int, pageToken string,
	keyOf func(string) string, decode func(doc, version string) (T, error)) ([]T, string, error) {
	ids, next, err := s.page(ctx, idsKey, limit, pageToken)
	if err != nil || len(ids) == 0 {
		return nil, next, err
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = keyOf(id)
	}
	stored, err := s.c.Tenants(ctx, keys)
	if err != nil {
		return nil, next, s.fail("list", err)
	}
	out := make([]T, 0, len(ids))
	for i, st := range stored {
		if !st.Found {
			continue
		}
		v, err := decode(st.Doc, st.Version)
		if err != nil {
			return nil, next, s.fail("list "+ids[i], err)
		}
		out = append(out, v)
	}
	return out, next, nil
}
