package devserver

import (
	"slices"
	"strings"
)

// resources are the resource templates that the gateway knows ("/items/{id}",
// "/files/{proxy+}"), which stand in for the resources of a deployed REST API: a
// request's resource is the most specific one that matches its path, as API Gateway
// chooses it, or the path itself when none does.
//
// A {name} segment matches one non-empty path segment; a {name+}, the last, matches
// one too and every segment after it. Among the templates that match a path, the one
// with a literal segment where another has a variable wins at the first segment where
// they differ, and a {name} beats a {name+} there. A resource without a variable
// matches only itself: it needs no template, but beats every template on its own path
// (/items/new over /items/{id}). The zero value knows none: every path is its own
// resource.
type resources struct {
	exact     map[string]bool // the resources without a variable
	templates []template      // the others, most specific first
}

// template is a resource with a variable, split into segments.
type template struct {
	resource string
	segments []string
	kinds    []kind
}

// kind is a template segment's, in order of precedence.
type kind int

const (
	literal  kind = iota // matches itself
	variable             // {name}: one non-empty segment
	greedy               // {name+}, last: one non-empty segment and all that follow
)

// newResources returns the resources of a list of route resources, duplicates
// allowed. One that is not a path ("$default") is left out; one whose greedy variable
// is not its last segment (which API Gateway and the admin API refuse) matches only a
// path spelled as it is, as a resource without variables does.
func newResources(list []string) resources {
	rs := resources{exact: map[string]bool{}}
	for _, res := range slices.Compact(slices.Sorted(slices.Values(list))) {
		if t, ok := parseTemplate(res); ok {
			rs.templates = append(rs.templates, t)
		} else if strings.HasPrefix(res, "/") {
			rs.exact[res] = true
		}
	}
	// Sorted by resource first: two templates of the same kinds keep that order.
	slices.SortStableFunc(rs.templates, func(a, b template) int { return slices.Compare(a.kinds, b.kinds) })
	return rs
}

// match returns the resource of a request for path (escaped, as url.URL.EscapedPath
// gives it: an encoded slash stays inside its segment), when a template matches it.
func (rs resources) match(path string) (string, bool) {
	if len(rs.templates) == 0 || rs.exact[path] || !strings.HasPrefix(path, "/") {
		return "", false
	}
	segments := strings.Split(path[1:], "/")
	for _, t := range rs.templates {
		if t.matches(segments) {
			return t.resource, true
		}
	}
	return "", false
}

func (t template) matches(path []string) bool {
	for i, k := range t.kinds {
		switch {
		case i >= len(path) || k != literal && path[i] == "":
			return false
		case k == greedy:
			return true
		case k == literal && path[i] != t.segments[i]:
			return false
		}
	}
	return len(path) == len(t.kinds)
}

// parseTemplate splits res into a template, when it is a path with a variable.
func parseTemplate(res string) (template, bool) {
	if !strings.HasPrefix(res, "/") || !strings.Contains(res, "{") {
		return template{}, false
	}
	t := template{resource: res, segments: strings.Split(res[1:], "/")}
	for i, seg := range t.segments {
		k := kindOf(seg)
		if k == greedy && i != len(t.segments)-1 {
			return template{}, false
		}
		t.kinds = append(t.kinds, k)
	}
	return t, slices.ContainsFunc(t.kinds, func(k kind) bool { return k != literal })
}

func kindOf(seg string) kind {
	name, ok := strings.CutPrefix(seg, "{")
	name, closed := strings.CutSuffix(name, "}")
	name, plus := strings.CutSuffix(name, "+")
	switch {
	case !ok || !closed || name == "" || strings.ContainsAny(name, "{}+"):
		return literal
	case plus:
		return greedy
	}
	return variable
}
