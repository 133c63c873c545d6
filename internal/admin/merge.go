package admin

import (
	"context"
	"errors"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// checkMerge checks, before t is written, what its requests are limited by: t merged
// with its plan, its overrides and the own rules of each of keys
// (tenant.Tenant.CheckMerge). A problem is a 422 naming the field; one that only a
// key's own rules make names that key in its detail.
func (h *Handler) checkMerge(ctx context.Context, t tenant.Tenant, keys []apikey.Record) error {
	p, err := h.planOf(ctx, t)
	if err != nil {
		return err
	}
	if err := t.CheckMerge(p, nil, nil); err != nil {
		return validationError(err)
	}
	for _, rec := range keys {
		if len(rec.Rules) == 0 {
			continue
		}
		if err := t.CheckMerge(p, rec.Rules, nil); err != nil {
			return validationError(withReason(err, "with the own rules of key "+rec.KeyID+": "))
		}
	}
	return nil
}

// checkKeyRules checks, before a key with the own rules rules is issued, that they
// merge with its tenant's (tenant.Tenant.CheckMerge): a 422 naming rules otherwise.
func (h *Handler) checkKeyRules(ctx context.Context, tenantID string, rules []limiter.Rule) error {
	if len(rules) == 0 {
		return nil
	}
	t, err := h.loadTenant(ctx, tenantID)
	if err != nil {
		return err
	}
	p, err := h.planOf(ctx, t)
	if err != nil {
		return err
	}
	if err := t.CheckMerge(p, rules, nil); err != nil {
		fe, ok := errors.AsType[*limiter.FieldError](err)
		if !ok {
			return validationError(err)
		}
		return fieldError("rules", "", fmt.Sprintf("merged with tenant %q, %s: %s", t.ID, fe.Field, fe.Reason))
	}
	return nil
}

// withReason returns err, a *limiter.FieldError, with prefix before its reason.
func withReason(err error, prefix string) error {
	fe, ok := errors.AsType[*limiter.FieldError](err)
	if !ok {
		return err
	}
	return &limiter.FieldError{Field: fe.Field, Value: fe.Value, Reason: prefix + fe.Reason}
}
