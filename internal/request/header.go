package request

import "strings"

// Header returns the value of header name in an event's headers, by one rule that
// every request kind follows:
//
//   - the name matches whatever its case (REST events keep the client's spelling,
//     HTTP API events are lower case); a key spelled exactly as name wins over other
//     spellings, and among those the first in byte order, so that the answer never
//     depends on map order;
//   - the single-value map is looked in first; when it holds no value, the first
//     value in the multi-value map;
//   - whitespace around the value is not part of it (RFC 9110, section 5.5): an API
//     key sent as " elk_..." is the key "elk_...", whichever path reads it.
func Header(single map[string]string, multi map[string][]string, name string) string {
	if k, ok := find(single, name); ok {
		if v := strings.TrimSpace(single[k]); v != "" {
			return v
		}
	}
	if k, ok := find(multi, name); ok && len(multi[k]) > 0 {
		return strings.TrimSpace(multi[k][0])
	}
	return ""
}

// find returns the key of m that name matches (see Header).
func find[V any](m map[string]V, name string) (string, bool) {
	if _, ok := m[name]; ok {
		return name, true
	}
	best, found := "", false
	for k := range m {
		if strings.EqualFold(k, name) && (!found || k < best) {
			best, found = k, true
		}
	}
	return best, found
}
