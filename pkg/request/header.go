package request

import "strings"

// Header finds name in an event's headers, whatever its case: the single-value map
// first, then the first value in the multi-value map.
func Header(single map[string]string, multi map[string][]string, name string) string {
	for k, v := range single {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	for k, v := range multi {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// authorizerHeader returns the value of header name, matched case-insensitively (REST
// events keep the client's spelling; HTTP API events are lower case), trimmed.
func authorizerHeader(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return strings.TrimSpace(v)
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// authorizerMultiHeader returns the first value of header name in a REST event's
// multiValueHeaders, trimmed.
func authorizerMultiHeader(h map[string][]string, name string) string {
	for k, vs := range h {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return strings.TrimSpace(vs[0])
		}
	}
	return ""
}
