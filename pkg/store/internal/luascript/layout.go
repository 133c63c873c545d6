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

// DeleteKeys returns the KEYS of delete.lua for tenant id, whose key records (key id
// -> JSON) are recs.
func (l Layout) DeleteKeys(id string, recs map[string]string) ([]string, error) {
	keys := []string{l.Tenant(id), l.IDs(), l.Keys(id)}
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
	var t tenant.Tenant
	if err := json.Unmarshal([]byte(doc), &t); err != nil {
		return tenant.Tenant{}, fmt.Errorf("stored tenant of %d bytes: %w", len(doc), redact.JSON(err))
	}
	var err error
	if t.Version, err = strconv.ParseInt(version, 10, 64); err != nil {
		return tenant.Tenant{}, redact.Wrap(fmt.Sprintf("stored version of %d bytes is not an int64", len(version)), err)
	}
	return t, nil
}

// ErrMalformedReply reports a script's answer that it never gives: of the wrong
// length, or with impossible values. Nothing is written on the strength of such a reply.
var ErrMalformedReply = errors.New("malformed script reply")

// ErrRetry is what the answer -3 of delete.lua and changekey.lua means: the tenant's
// keys changed since the caller read them; the caller reads them again and retries.
var ErrRetry = errors.New("the tenant's keys changed since they were read")

// answers are what each script's answers other than 1 mean (see each .lua file).
var answers = map[*Script]map[int64]error{
	createScript:    {0: store.ErrExists},
	replaceScript:   {-1: store.ErrNotFound, -2: store.ErrVersionConflict},
	deleteScript:    {-1: store.ErrNotFound, -2: store.ErrVersionConflict, -3: ErrRetry},
	putKeyScript:    {-1: store.ErrNotFound, -2: store.ErrExists, -3: store.ErrTooManyKeys},
	changeKeyScript: {-1: store.ErrNotFound, -3: ErrRetry},
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
