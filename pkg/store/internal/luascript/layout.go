package luascript

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/internal/redact"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// This file holds what the Tenants of both stores rest on beside TenantsConn: the
// scripts, the names of the keys, the decoding of a stored tenant and the meaning of
// the scripts' answers.

// Layout names a store's Redis keys, each starting with Prefix (see the package doc).
type Layout struct {
	Prefix string
}

// Tenant is the tenant's hash: doc, version, keyrev.
func (l Layout) Tenant(id string) string { return l.Prefix + "tenant:" + id }

// Keys is the tenant's hash of key records, by key id.
func (l Layout) Keys(id string) string { return l.Prefix + "keys:" + id }

// Record is a key record, by the key's hash.
func (l Layout) Record(hash string) string { return l.Prefix + "key:" + hash }

// IDs is the sorted set of tenant ids.
func (l Layout) IDs() string { return l.Prefix + "ids" }

// Plan is the plan's hash: doc, version.
func (l Layout) Plan(id string) string { return l.Prefix + "plan:" + id }

// PlanIDs is the sorted set of plan ids.
func (l Layout) PlanIDs() string { return l.Prefix + "plans" }

// PlanUsers is the sorted set of the ids of the tenants that name plan id.
func (l Layout) PlanUsers(id string) string { return l.Prefix + "planusers:" + id }

// DeleteKeys returns the KEYS of delete.lua for tenant id on plan ("" for none), whose
// key records (key id -> JSON) are recs.
func (l Layout) DeleteKeys(id, plan string, recs map[string]string) ([]string, error) {
	keys := []string{l.Tenant(id), l.IDs(), l.PlanUsers(plan), l.Keys(id)}
	for _, doc := range recs {
		rec, err := store.DecodeRecord(doc)
		if err != nil {
			return nil, err
		}
		keys = append(keys, l.Record(rec.Hash))
	}
	return keys, nil
}

// KeyKeys returns the KEYS of putkey.lua and changekey.lua for the key whose hash is
// hash, of tenant id.
func (l Layout) KeyKeys(id, hash string) []string {
	return []string{l.Tenant(id), l.Keys(id), l.Record(hash)}
}

// DecodeTenant reads a tenant stored as doc (its JSON) and version (decimal).
func DecodeTenant(doc, version string) (tenant.Tenant, error) {
	t, v, err := decodeDoc[tenant.Tenant]("tenant", doc, version)
	t.Version = v
	return t, err
}

// DecodePlan reads a plan stored as doc (its JSON) and version (decimal).
func DecodePlan(doc, version string) (tenant.Plan, error) {
	p, v, err := decodeDoc[tenant.Plan]("plan", doc, version)
	p.Version = v
	return p, err
}

// decodeDoc reads a what (tenant or plan) stored as doc and version; its errors quote
// no stored byte.
func decodeDoc[T any](what, doc, version string) (T, int64, error) {
	var v, zero T
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return zero, 0, fmt.Errorf("stored %s of %d bytes: %w", what, len(doc), redact.JSON(err))
	}
	n, err := strconv.ParseInt(version, 10, 64)
	if err != nil {
		return zero, 0, redact.Wrap(fmt.Sprintf("stored version of %d bytes is not an int64", len(version)), err)
	}
	return v, n, nil
}

// ErrMalformedReply reports a script's answer that it never gives: of the wrong
// length, or with impossible values. Nothing is written on the strength of such a reply.
var ErrMalformedReply = errors.New("malformed script reply")

// ErrRetry is what the answer -3 of delete.lua, replace.lua and changekey.lua means:
// the tenant's keys or plan changed since the caller read them; the caller reads them
// again and retries.
var ErrRetry = errors.New("the tenant's keys or plan changed since they were read")

// errUnknownPlan is what the answer -4 of create.lua and replace.lua means: the plan
// the tenant names does not exist (the caller answers tenant.UnknownPlan).
var errUnknownPlan = errors.New("the tenant's plan does not exist")

// errPlanInUse is what the answer -5 of deleteplan.lua means: a tenant names the plan
// (the caller names one in a store.PlanInUseError).
var errPlanInUse = errors.New("a tenant names the plan")

// answers are what each script's answers other than 1 mean (see each .lua file).
var answers = map[*Script]map[int64]error{
	createScript:      {0: store.ErrExists, -4: errUnknownPlan},
	replaceScript:     {-1: store.ErrNotFound, -2: store.ErrVersionConflict, -3: ErrRetry, -4: errUnknownPlan},
	deleteScript:      {-1: store.ErrNotFound, -2: store.ErrVersionConflict, -3: ErrRetry},
	createPlanScript:  {0: store.ErrExists},
	replacePlanScript: {-1: store.ErrNotFound, -2: store.ErrVersionConflict},
	deletePlanScript:  {-1: store.ErrNotFound, -2: store.ErrVersionConflict, -5: errPlanInUse},
	putKeyScript:      {-1: store.ErrNotFound, -2: store.ErrExists, -3: store.ErrTooManyKeys},
	changeKeyScript:   {-1: store.ErrNotFound, -3: ErrRetry},
}

// Outcome returns the error that script's answer means: nil for 1 (done), ErrRetry or
// one of store's sentinels for the others, and an ErrMalformedReply for an answer
// the script never gives.
func Outcome(script *Script, answer int64) error {
	if answer == 1 {
		return nil
	}
	if err, ok := answers[script][answer]; ok {
		return err
	}
	return fmt.Errorf("%w: the script answered %d", ErrMalformedReply, answer)
}
