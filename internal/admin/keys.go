package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
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
	// Rules are the key's own key-scope rules (apikey.Record.Rules), when it has any.
	Rules []limiter.Rule `json:"rules,omitempty"`
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
	k := keyJSON{KeyID: rec.KeyID, Prefix: rec.Prefix, Created: formatTime(rec.Created), Revoked: rec.Revoked, Rules: rec.Rules}
	if rec.Revoked {
		k.RevokedAt = new(formatTime(rec.RevokedAt))
	}
	return k
}

// createKey answers POST /tenants/{id}/keys: a new key, shown once. The body is
// empty, {}, or {"rules": [...]}: the key's own key-scope rules (none for an empty
// list).
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, p params) error {
	rules, err := h.readKeyRules(r)
	if err != nil {
		return err
	}
	if !tenant.ValidID(p.id) {
		return tenantNotFound(p.id)
	}
	if err := h.checkKeyRules(r.Context(), p.id, rules); err != nil {
		return err
	}
	for range maxAttempts {
		k := h.newKey()
		rec := apikey.NewRecord(k, p.id, h.now())
		rec.Rules = rules
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

// readKeyRules reads the body of POST /tenants/{id}/keys: nothing, {}, or
// {"rules": [...]}, rules the counter store must honour, each of scope key (its
// default). A bad rule is a 422 naming it ("rules[0].limit").
func (h *Handler) readKeyRules(r *http.Request) ([]limiter.Rule, error) {
	if r.Header.Get("Content-Type") == "" {
		return nil, readEmptyBody(r)
	}
	body, err := readBody(r, jsonType)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return nil, err
	}
	var raw struct {
		Rules []json.RawMessage `json:"rules"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, keyBodyError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, newError(problemInvalidJSON, "data after the JSON value")
	}
	rules := make([]limiter.Rule, len(raw.Rules))
	for i, msg := range raw.Rules {
		if rules[i], err = limiter.ParseRule(msg); err == nil {
			err = h.honours(rules[i])
		}
		if err != nil {
			return nil, validationError(fieldAt("rules["+strconv.Itoa(i)+"]", err))
		}
		if rules[i] = rules[i].Normalized(); rules[i].Scope == "" {
			rules[i].Scope = limiter.ScopeKey
		}
	}
	if err := apikey.ValidateRules(rules); err != nil {
		return nil, validationError(err)
	}
	if len(rules) == 0 {
		return nil, nil
	}
	return rules, nil
}

// keyBodyError answers a body of POST /tenants/{id}/keys that does not decode: 422
// naming an unknown member or the member of the wrong type, 400 for malformed JSON.
func keyBodyError(err error) error {
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if name, _ = strconv.Unquote(name); name == "" {
			name = `""`
		}
		return fieldError(name, "", "unknown field: this request takes rules, or nothing")
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field == "" {
			return fieldError("", "", "the body must be empty, or a JSON object: {} or {\"rules\": [...]}")
		}
		return fieldError(te.Field, "", "must be an array of rules")
	}
	return newError(problemInvalidJSON, "the body must be empty, {} or {\"rules\": [...]}: "+err.Error())
}

// fieldAt places err, a rule's error, under path ("rules[0]"), as a *limiter.FieldError.
func fieldAt(path string, err error) error {
	if fe, ok := errors.AsType[*limiter.FieldError](err); ok {
		return &limiter.FieldError{Field: path + "." + fe.Field, Value: fe.Value, Reason: fe.Reason}
	}
	return &limiter.FieldError{Field: path, Reason: err.Error()}
}

// listKeys answers GET /tenants/{id}/keys: every key record, revoked ones included,
// in order of creation.
func (h *Handler) listKeys(w http.ResponseWriter, r *http.Request, p params) error {
	recs, err := load(r.Context(), p.id, h.tenants.ListKeys, tenantNotFound)
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
	purge, err := boolParam(p.query, "purge")
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
	return h.getKey(w, r, p) // the record, revoked
}

// findKey returns the tenant's key record keyID: a 404 problem when there is none.
func (h *Handler) findKey(ctx context.Context, id, keyID string) (apikey.Record, error) {
	recs, err := load(ctx, id, h.tenants.ListKeys, tenantNotFound)
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
