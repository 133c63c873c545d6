package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// maxPages bounds the pages of one listing that Read follows.
const maxPages = 10000

// Read lists what the admin API holds: every plan and tenant, normalized as Parse
// normalizes a file's, with their ETags, and with keys every tenant's key records. A
// server without plan routes (404 on GET /plans) has no plans.
func Read(ctx context.Context, c *Client, keys bool) (*State, error) {
	s := newState()
	plans, err := c.list(ctx, "/plans", "plans")
	if se, ok := errors.AsType[*StatusError](err); err != nil && !(ok && se.Status == http.StatusNotFound) {
		return nil, err
	}
	s.plansServed = err == nil
	if err := s.add("plan", plans, s.Plans, normalizePlan); err != nil {
		return nil, err
	}
	tenants, err := c.list(ctx, "/tenants", "tenants")
	if err != nil {
		return nil, err
	}
	if err := s.add("tenant", tenants, s.Tenants, normalizeTenant); err != nil {
		return nil, err
	}
	if keys {
		for id := range s.Tenants {
			if err := s.readKeys(ctx, c, id); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// add normalizes objects read from the server into out, noting their ETags (the
// version in quotes, as the admin API makes them).
func (s *State) add(kind string, objs []Object, out map[string]Object, normalize func(Object) (Object, error)) error {
	for _, obj := range objs {
		id, _ := obj["id"].(string)
		version, _ := obj["version"].(json.Number)
		norm, err := normalize(obj)
		if err != nil {
			return fmt.Errorf("the server's %s %q does not read: %w", kind, id, err)
		}
		out[id] = norm
		s.etags[ref{kind, id}] = strconv.Quote(version.String())
	}
	return nil
}

// Refresh reads again each plan and tenant that changes replace or delete (GET
// /plans/{id}, /tenants/{id}), and keeps that body with the ETag header of the same
// answer: a Diff after it compares the file with exactly the version that the writes'
// If-Match names, whatever form the server's ETags take. An object gone meanwhile is
// dropped (Diff then creates it). It reads the keys of each tenant to replace too, so
// that Diff checks the tenant against their own rules as the admin API will.
func (s *State) Refresh(ctx context.Context, c *Client, changes []Change) error {
	for _, ch := range changes {
		if ch.Op == '+' || ch.Kind == "key" {
			continue
		}
		objs, normalize := s.Tenants, normalizeTenant
		if ch.Kind == "plan" {
			objs, normalize = s.Plans, normalizePlan
		}
		r, err := c.do(ctx, http.MethodGet, ch.path, nil, "")
		switch {
		case err != nil:
			return err
		case r.status == http.StatusNotFound:
			delete(objs, ch.ID)
			continue
		case r.status != http.StatusOK:
			return apiError(http.MethodGet, ch.path, r)
		}
		var obj Object
		if err := decodeObject(r.body, &obj); err != nil {
			return fmt.Errorf("GET %s: the answer does not read: %w", ch.path, err)
		}
		if err := s.add(ch.Kind, []Object{obj}, objs, normalize); err != nil {
			return err
		}
		if r.etag != "" {
			s.etags[ref{ch.Kind, ch.ID}] = r.etag
		}
		if ch.Kind == "tenant" && ch.Op == '~' {
			if err := s.readOwnRules(ctx, c, ch.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyRecord is a key as GET /tenants/{id}/keys lists it, in the fields apply reads.
type keyRecord struct {
	KeyID   string         `json:"key_id"`
	Revoked bool           `json:"revoked"`
	Rules   []limiter.Rule `json:"rules"`
}

// readKeys adds the key records of tenant id, and notes their own rules.
func (s *State) readKeys(ctx context.Context, c *Client, id string) error {
	recs, err := c.keyRecords(ctx, id)
	if err != nil {
		return err
	}
	for _, k := range recs {
		if other, dup := s.Keys[k.KeyID]; dup {
			return fmt.Errorf("key id %s is used by tenants %s and %s: a file names keys by id alone", k.KeyID, other.Tenant, id)
		}
		status := KeyActive
		if k.Revoked {
			status = KeyRevoked
		}
		s.Keys[k.KeyID] = Key{Tenant: id, Status: status}
	}
	s.noteOwnRules(id, recs)
	return nil
}

// readOwnRules reads the keys of tenant id again for their own rules alone.
func (s *State) readOwnRules(ctx context.Context, c *Client, id string) error {
	recs, err := c.keyRecords(ctx, id)
	if err != nil {
		return err
	}
	s.noteOwnRules(id, recs)
	return nil
}

// noteOwnRules keeps the own rules of the keys recs of tenant id, revoked keys
// included: the admin API checks a tenant's write against every key record it lists.
func (s *State) noteOwnRules(id string, recs []keyRecord) {
	own := []ownRules{} // not nil: read
	for _, k := range recs {
		if len(k.Rules) > 0 {
			own = append(own, ownRules{keyID: k.KeyID, rules: k.Rules})
		}
	}
	s.ownRules[id] = own
}

// keyRecords lists the key records of tenant id.
func (c *Client) keyRecords(ctx context.Context, id string) ([]keyRecord, error) {
	var list struct {
		Keys []keyRecord `json:"keys"`
	}
	if err := c.getJSON(ctx, "/tenants/"+url.PathEscape(id)+"/keys", &list); err != nil {
		return nil, err
	}
	return list.Keys, nil
}

// list reads every page of a listing ({"<field>": [...], "next_page_token": ...}).
func (c *Client) list(ctx context.Context, path, field string) ([]Object, error) {
	var all []Object
	token := ""
	for range maxPages {
		q := url.Values{"limit": {strconv.Itoa(store.MaxListLimit)}}
		if token != "" {
			q.Set("page_token", token)
		}
		var page map[string]json.RawMessage
		if err := c.getJSON(ctx, path+"?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		var objs []Object
		if err := decodeObject(page[field], &objs); err != nil {
			return nil, fmt.Errorf("GET %s: %q is not a list of objects", path, field)
		}
		all = append(all, objs...)
		token = "" // next_page_token is null (or absent) after the last page
		json.Unmarshal(page["next_page_token"], &token)
		if token == "" {
			return all, nil
		}
	}
	return nil, fmt.Errorf("GET %s: more than %d pages", path, maxPages)
}

// getJSON reads path's 200 answer into v.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	r, err := c.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return apiError(http.MethodGet, path, r)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("GET %s: the answer does not read: %w", path, err)
	}
	return nil
}
