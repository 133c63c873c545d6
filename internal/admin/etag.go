package admin

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// etag returns the ETag of a tenant version: the version in quotes, a strong tag.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// ifMatch is a parsed If-Match header (RFC 9110, section 13.1.1).
type ifMatch struct {
	present  bool
	any      bool    // "*": any current version
	versions []int64 // the strong tags that are versions; other tags never match
}

const ifMatchHelp = `must be "*" or entity tags as the ETag header gives them, quotes included, such as "3"`

// parseIfMatch reads the If-Match header. A malformed header is a 400 problem.
func parseIfMatch(h http.Header) (ifMatch, error) {
	values := h.Values("If-Match")
	if len(values) == 0 {
		return ifMatch{}, nil
	}
	m := ifMatch{present: true}
	items := 0
	for _, item := range strings.Split(strings.Join(values, ","), ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case item == "*":
			m.any = true
		case strings.HasPrefix(item, `W/`) && validTag(item[2:]):
			// A weak tag never matches: If-Match compares strongly.
		case validTag(item):
			if v, err := strconv.ParseInt(item[1:len(item)-1], 10, 64); err == nil {
				m.versions = append(m.versions, v)
			}
		default:
			return ifMatch{}, paramError("If-Match", "", ifMatchHelp)
		}
		items++
	}
	if items == 0 || m.any && items > 1 {
		return ifMatch{}, paramError("If-Match", "", ifMatchHelp)
	}
	return m, nil
}

// validTag reports whether s is an opaque-tag: a quoted string without quotes inside.
func validTag(s string) bool {
	return len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && !strings.Contains(s[1:len(s)-1], `"`)
}

// precondition checks If-Match against the stored version: 428 when required and
// missing, 412 when it does not match.
func precondition(m ifMatch, version int64, required bool) error {
	if !m.present {
		if required {
			return &apiError{slug: problemPreconditionRequired, field: "If-Match",
				detail: `this request needs If-Match: the tenant's ETag (GET it first), or "*"`}
		}
		return nil
	}
	if !m.any && !slices.Contains(m.versions, version) {
		return stale(version)
	}
	return nil
}

// stale is the 412 problem for a tenant whose version is now version (0: gone).
func stale(version int64) *apiError {
	e := &apiError{slug: problemPreconditionFailed, field: "If-Match",
		detail: "If-Match does not match the tenant's current ETag: GET it again and retry"}
	if version > 0 {
		e.header = http.Header{"ETag": {etag(version)}}
	}
	return e
}
