package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/edgelimit/edgelimit/internal/redact"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Sentinel errors. Stores return them wrapped or as they are: test with errors.Is.
// Invalid input is a *limiter.FieldError (tenants) or another error naming the problem,
// and changes nothing.
var (
	// ErrNotFound: no tenant with that id, or no key with that hash or key id.
	ErrNotFound = errors.New("tenantstore: not found")
	// ErrRevoked: LookupKey found the key but it is revoked. It wraps ErrNotFound, so
	// a caller that only authenticates checks ErrNotFound alone.
	ErrRevoked = fmt.Errorf("%w: key revoked", ErrNotFound)
	// ErrExists: Create found the id taken, or PutKey the hash or key id taken.
	ErrExists = errors.New("tenantstore: already exists")
	// ErrVersionConflict: the tenant's stored version is not the one given.
	ErrVersionConflict = errors.New("tenantstore: version conflict")
	// ErrPageToken: List was given a page token it did not make.
	ErrPageToken = errors.New("tenantstore: invalid page token")
	// ErrTooManyKeys: the tenant already has MaxKeysPerTenant keys (revoked ones count
	// until deleted).
	ErrTooManyKeys = errors.New("tenantstore: too many keys for the tenant")
)

// Bounds.
const (
	// MaxKeysPerTenant bounds a tenant's key records, revoked ones included.
	MaxKeysPerTenant = 50
	// DefaultListLimit is List's page size when its limit is 0 or less.
	DefaultListLimit = 50
	// MaxListLimit is the largest page List returns; larger limits are lowered to it.
	MaxListLimit = 100
)

// Tenants keeps tenants and key records. Implementations are safe for concurrent use.
type Tenants interface {
	// Create stores a new tenant with version 1 and returns it as stored. It fails with
	// ErrExists when the id is taken, or with the tenant's validation error.
	Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error)
	// Get returns the tenant, or ErrNotFound.
	Get(ctx context.Context, id string) (tenant.Tenant, error)
	// Replace stores t in place of the tenant with the same id, only when its stored
	// version is ifVersion, and returns it as stored, with version ifVersion+1. It fails
	// with ErrNotFound, ErrVersionConflict, or the tenant's validation error. t is
	// stored as given otherwise: build it with tenant.ApplyUpdate. (For an admin's
	// `If-Match: *`, read the tenant and pass its version: ApplyUpdate needs it anyway.)
	Replace(ctx context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error)
	// Delete removes the tenant and all its key records, only when its stored version
	// is ifVersion. It fails with ErrNotFound or ErrVersionConflict.
	Delete(ctx context.Context, id string, ifVersion int64) error
	// List returns up to limit tenants in a stable order (see the implementation), and
	// the token of the next page, "" after the last. limit <= 0 means DefaultListLimit,
	// and limits above MaxListLimit are lowered to it. A page may hold fewer tenants
	// than limit while a next token is returned. A token that List did not make is
	// ErrPageToken; tenants created or deleted between pages may or may not appear.
	List(ctx context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error)

	// PutKey stores a new key record for an existing tenant. It fails with ErrNotFound
	// when the tenant does not exist, ErrExists when the hash or the tenant's key id is
	// taken, ErrTooManyKeys, or the record's validation error.
	PutKey(ctx context.Context, rec apikey.Record) error
	// LookupKey returns the record of the key whose hash (apikey.Hash) is hash. It
	// fails with ErrNotFound for an unknown or malformed hash and with ErrRevoked (which
	// also matches ErrNotFound) for a revoked key; the record is then zero.
	LookupKey(ctx context.Context, hash string) (apikey.Record, error)
	// ListKeys returns the tenant's key records, revoked ones included, in order of
	// creation (then key id). It fails with ErrNotFound when the tenant does not exist.
	ListKeys(ctx context.Context, tenantID string) ([]apikey.Record, error)
	// RevokeKey marks the tenant's key keyID revoked at at (microseconds): it stops
	// authenticating at once. Revoking a revoked key changes nothing and succeeds. It
	// fails with ErrNotFound when there is no such key.
	RevokeKey(ctx context.Context, tenantID, keyID string, at int64) error
	// DeleteKey removes the tenant's key record keyID, revoked or not. It fails with
	// ErrNotFound when there is no such key.
	DeleteKey(ctx context.Context, tenantID, keyID string) error
}

// PrepareCreate validates t and returns it normalized with version 1 and a new creation
// id (tenant.NewCreationID, whatever t held: a tenant created again gets new counter
// keys), as Create stores it. Implementations call it first.
func PrepareCreate(t tenant.Tenant) (tenant.Tenant, error) {
	t.CreationID = tenant.NewCreationID()
	return PrepareReplace(t, 0)
}

// PrepareReplace validates t and returns it normalized with version ifVersion+1, as
// Replace stores it. A version below 1 never matches: ErrVersionConflict, unless the
// tenant does not exist (implementations check that first).
func PrepareReplace(t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t = t.Normalized()
	t.Version = ifVersion + 1
	if err := t.Validate(); err != nil {
		return tenant.Tenant{}, err
	}
	return t, nil
}

// EncodeTenant returns the tenant that PrepareCreate or PrepareReplace made, with the
// JSON a shared store keeps of it; their error passes through:
//
//	t, doc, err := store.EncodeTenant(store.PrepareReplace(t, ifVersion))
func EncodeTenant(t tenant.Tenant, err error) (tenant.Tenant, []byte, error) {
	return encode(t, err)
}

// CheckRecord validates a key record for PutKey, its tenant id included.
func CheckRecord(rec apikey.Record) error {
	if !tenant.ValidID(rec.TenantID) {
		return errors.New("tenantstore: key record: tenant_id is not a valid tenant id")
	}
	return rec.Validate()
}

// FinishLookup checks a record found under hash: that it matches in constant time
// (belt and braces: it was found by that hash), and that it is not revoked.
func FinishLookup(rec apikey.Record, hash string) (apikey.Record, error) {
	if !rec.Matches(hash) {
		return apikey.Record{}, ErrNotFound
	}
	if rec.Revoked {
		return apikey.Record{}, ErrRevoked
	}
	return rec, nil
}

// DecodeLookup reads the record a lookup by hash found stored as JSON, and checks it
// as FinishLookup does.
func DecodeLookup(doc, hash string) (apikey.Record, error) {
	rec, err := DecodeRecord(doc)
	if err != nil {
		return apikey.Record{}, err
	}
	return FinishLookup(rec, hash)
}

// SortKeys sorts records as ListKeys returns them: by creation, then key id.
func SortKeys(recs []apikey.Record) {
	slices.SortFunc(recs, func(a, b apikey.Record) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.KeyID, b.KeyID))
	})
}

// ListLimit returns the page size List uses for limit.
func ListLimit(limit int) int {
	if limit <= 0 {
		return DefaultListLimit
	}
	return min(limit, MaxListLimit)
}

// DecodeRecord reads a key record that a store kept as JSON.
func DecodeRecord(doc string) (apikey.Record, error) {
	var rec apikey.Record
	if err := json.Unmarshal([]byte(doc), &rec); err != nil {
		return apikey.Record{}, fmt.Errorf("tenantstore: stored key record of %d bytes: %w", len(doc), redact.JSON(err))
	}
	return rec, nil
}

// FindRecord returns the record of keyID among a tenant's key records kept as JSON (key
// id -> record), decoded, and its JSON: ErrNotFound when the tenant has no such key.
func FindRecord(docs map[string]string, keyID string) (apikey.Record, string, error) {
	doc, ok := docs[keyID]
	if !ok {
		return apikey.Record{}, "", ErrNotFound
	}
	rec, err := DecodeRecord(doc)
	return rec, doc, err
}

// DecodeRecords reads a tenant's key records kept as JSON (key id -> record) and sorts
// them as ListKeys returns them.
func DecodeRecords(docs map[string]string) ([]apikey.Record, error) {
	out := make([]apikey.Record, 0, len(docs))
	for _, doc := range docs {
		rec, err := DecodeRecord(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	SortKeys(out)
	return out, nil
}
