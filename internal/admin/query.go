package admin

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// query returns the request's query parameters, each at most once and each one of
// allowed: a 400 problem naming the parameter otherwise (a misspelt parameter is an
// error, not silently ignored).
func query(r *http.Request, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for name, values := range r.URL.Query() {
		if !slices.Contains(allowed, name) {
			if len(allowed) == 0 {
				return nil, paramError(name, "", "unknown query parameter: this request takes none")
			}
			return nil, paramError(name, "", "unknown query parameter: want "+strings.Join(allowed, ", "))
		}
		if len(values) > 1 {
			return nil, paramError(name, "", "is given more than once")
		}
		out[name] = values[0]
	}
	return out, nil
}

// intParam parses the integer parameter name between lo and hi; "" gives def.
func intParam(q map[string]string, name string, lo, hi, def int) (int, error) {
	s, ok := q[name]
	if !ok || s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, paramError(name, s, "must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi))
	}
	return n, nil
}

// boolParam parses the boolean parameter name ("true" or "false"); "" gives false.
func boolParam(q map[string]string, name string) (bool, error) {
	switch q[name] {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, paramError(name, q[name], `must be "true" or "false"`)
}
