package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// keyJSON is a key as the API shows it: never the key, never its hash.
type keyJSON struct {
	KeyID     string  `json:"key_id"`
	Prefix    string  `json:"prefix"`
	Created   string  `json:"created"`
	Revoked   bool    `json:"revoked"`
	RevokedAt *string `json:"revoked_at,omitempty"`
}

// newKeyJSON is the answer to POST /tenants/{id}/keys: the key, shown this once.
type newKeyJSON struct {
	Key string `json:"key"`
	keyJSON
}

type keyList struct {
	Keys []keyJSON `json:"keys"`
}

func keyOf(rec apikey.Record) keyJSON {
	k := keyJSON{KeyID: rec.KeyID, Prefix: rec.Prefix, Created: formatTime(rec.Created), Revoked: rec.Revoked}
	if rec.Revoked {
		at := formatTime(rec.RevokedAt)
		k.RevokedAt = &at
	}
	return k
}

// createKey answers POST /tenants/{id}/keys: a new key, shown once.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, p params) error {
	if _, err := query(r); err != nil {
		return err
	}
	if err := readEmptyBody(r); err != nil {
		return err
	}
	if !tenant.ValidID(p.id) {
		return tenantNotFound(p.id)
	}
	for range maxAttempts {
		k := h.newKey()
		rec := apikey.NewRecord(k, p.id, h.now())
		err := h.tenants.PutKey(r.Context(), rec)
		switch {
		case err == nil:
			h.auditKey(r.Context(), OpKeyIssue, p.id, rec.KeyID)
			w.Header().Set("Location", "keys/"+rec.KeyID) // relative to /tenants/{id}/keys
			writeJSON(w, http.StatusCreated, newKeyJSON{Key: k.Reveal(), keyJSON: keyOf(rec)})
			return nil
		case errors.Is(err, store.ErrExists):
			continue // the random key id is taken within the tenant: draw another
		case errors.Is(err, store.ErrNotFound):
			return tenantNotFound(p.id)
		case errors.Is(err, store.ErrTooManyKeys):
			return newError(problemTooManyKeys, fmt.Sprintf("a tenant has at most %d keys, revoked ones included: remove revoked keys with DELETE /tenants/{id}/keys/{keyId}?purge=true", store.MaxKeysPerTenant))
		default:
			return &apiError{slug: problemUnavailable, cause: err, detail: "the tenant store failed: no key was made"}
		}
	}
	return &apiError{slug: problemInternal, detail: "no unused key id was drawn", cause: store.ErrExists}
}

// listKeys answers GET /tenants/{id}/keys: every key record, revoked ones included,
// in order of creation.
func (h *Handler) listKeys(w http.ResponseWriter, r *http.Request, p params) error {
	if _, err := query(r); err != nil {
		return err
	}
	recs, err := h.keyRecords(r.Context(), p.id)
	if err != nil {
		return err
	}
	out := keyList{Keys: make([]keyJSON, 0, len(recs))}
	for _, rec := range recs {
		out.Keys = append(out.Keys, keyOf(rec))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getKey answers GET /tenants/{id}/keys/{keyId}.
func (h *Handler) getKey(w http.ResponseWriter, r *http.Request, p params) error {
	if _, err := query(r); err != nil {
		return err
	}
	rec, err := h.findKey(r.Context(), p.id, p.keyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, keyOf(rec))
	return nil
}

// revokeKey answers DELETE /tenants/{id}/keys/{keyId}: the key is revoked (and stays
// listed), or with ?purge=true its record is removed. Either way the tenant store stops
// accepting the key at once; an authorizer that cached it stops within its
// EDGELIMIT_CONFIG_TTL.
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, p params) error {
	q, err := query(r, "purge")
	if err != nil {
		return err
	}
	purge, err := boolParam(q, "purge")
	if err != nil {
		return err
	}
	if _, err := h.findKey(r.Context(), p.id, p.keyID); err != nil {
		return err
	}
	if purge {
		err = h.tenants.DeleteKey(r.Context(), p.id, p.keyID)
	} else {
		err = h.tenants.RevokeKey(r.Context(), p.id, p.keyID, h.now())
	}
	if errors.Is(err, store.ErrNotFound) {
		return keyNotFound(p.id, p.keyID)
	}
	if err != nil {
		return storeError(err)
	}
	if purge {
		h.auditKey(r.Context(), OpKeyPurge, p.id, p.keyID)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	h.auditKey(r.Context(), OpKeyRevoke, p.id, p.keyID)
	rec, err := h.findKey(r.Context(), p.id, p.keyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, keyOf(rec))
	return nil
}

// keyRecords returns the tenant's key records: a 404 problem when there is no tenant.
func (h *Handler) keyRecords(ctx context.Context, id string) ([]apikey.Record, error) {
	if !tenant.ValidID(id) {
		return nil, tenantNotFound(id)
	}
	recs, err := h.tenants.ListKeys(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, tenantNotFound(id)
	}
	if err != nil {
		return nil, storeError(err)
	}
	return recs, nil
}

// findKey returns the tenant's key record keyID: a 404 problem when there is none.
func (h *Handler) findKey(ctx context.Context, id, keyID string) (apikey.Record, error) {
	recs, err := h.keyRecords(ctx, id)
	if err != nil {
		return apikey.Record{}, err
	}
	for _, rec := range recs {
		if rec.KeyID == keyID {
			return rec, nil
		}
	}
	return apikey.Record{}, keyNotFound(id, keyID)
}

func keyNotFound(id, keyID string) *apiError {
	return &apiError{slug: problemNotFound, detail: "tenant " + strconv.Quote(id) + " has no key " + strconv.Quote(keyID), cause: store.ErrNotFound}
}
