package store

import (
	"encoding/base64"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const pageTokenPrefix = "after:"

// PageToken returns the opaque token of the page that follows the tenant lastID. The
// stores list tenants by id or resume a scan after an id, so an id is all a token
// needs; it is encoded so that callers do not come to rely on its contents.
func PageToken(lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(pageTokenPrefix + lastID))
}

// ParsePageToken returns the tenant id a token resumes after; "" gives "" (the first
// page). A token PageToken did not make is ErrPageToken.
func ParsePageToken(token string) (lastID string, err error) {
	if token == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", ErrPageToken
	}
	id, ok := strings.CutPrefix(string(raw), pageTokenPrefix)
	if !ok || !tenant.ValidID(id) {
		return "", ErrPageToken
	}
	return id, nil
}
