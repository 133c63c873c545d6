package upstash

import (
	"context"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// List returns tenants in order of id: ZRANGE BYLEX over the ids, then one pipeline of
// HMGETs. A tenant deleted between the two is left out.
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
	r, err := s.c.Do(ctx, "ZRANGE", s.idsKey(), start, "+", "BYLEX", "LIMIT", 0, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("tenantstore/upstash: list: %w", err)
	}
	members, err := r.Array()
	if err != nil {
		return nil, "", fmt.Errorf("tenantstore/upstash: list: %w", err)
	}
	ids := make([]string, 0, len(members))
	for _, m := range members {
		id, err := m.String()
		if err != nil {
			return nil, "", fmt.Errorf("tenantstore/upstash: list: %w", err)
		}
		ids = append(ids, id)
	}
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = store.PageToken(ids[limit-1])
	}
	out, err := s.fetch(ctx, ids)
	return out, next, err
}

// fetch reads the tenants ids in one pipeline, leaving out those deleted meanwhile.
func (s *Tenants) fetch(ctx context.Context, ids []string) ([]tenant.Tenant, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([][]any, len(ids))
	for i, id := range ids {
		cmds[i] = []any{"HMGET", s.tenantKey(id), "doc", "version"}
	}
	results, err := s.c.Pipeline(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("tenantstore/upstash: list: %w", err)
	}
	out := make([]tenant.Tenant, 0, len(ids))
	for i, res := range results {
		if res.Err != nil {
			return nil, fmt.Errorf("tenantstore/upstash: list %s: %w", ids[i], res.Err)
		}
		t, err := decodeTenant(res.Reply)
		if err == store.ErrNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
