package templatecheck

import (
	"maps"
	"slices"
)

// The template as YAML decodes it: maps, lists and scalars, read with these helpers.

// dig follows keys through nested maps; nil when one is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		v = asMap(v)[k]
	}
	return v
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }
func asString(v any) string      { s, _ := v.(string); return s }

// asStrings returns a list of strings, or a lone string as a list of one.
func asStrings(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var out []string
	for _, e := range asList(v) {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// intrinsic returns the name and argument of a one-key intrinsic function map
// ({"Ref": x}, {"Fn::If": [...]}, ...).
func intrinsic(v any) (name string, arg any, ok bool) {
	m := asMap(v)
	if len(m) != 1 {
		return "", nil, false
	}
	for k, a := range m {
		if k == "Ref" || k == "Condition" || len(k) > 4 && k[:4] == "Fn::" {
			return k, a, true
		}
	}
	return "", nil, false
}

// refTo reports whether v is {"Ref": name}.
func refTo(v any, name string) bool {
	fn, arg, ok := intrinsic(v)
	return ok && fn == "Ref" && arg == name
}

// getAttOf returns the resource and attribute of {"Fn::GetAtt": [resource, attribute]}.
func getAttOf(v any) (res, attr string, ok bool) {
	fn, arg, ok := intrinsic(v)
	if !ok || fn != "Fn::GetAtt" {
		return "", "", false
	}
	parts := asStrings(arg)
	if len(parts) != 2 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// isNoValue reports whether v is {"Ref": "AWS::NoValue"}.
func isNoValue(v any) bool { return refTo(v, "AWS::NoValue") }

// alternatives returns what v may evaluate to once its Fn::If are resolved: v itself,
// or the branches of an Fn::If (recursively), AWS::NoValue left out.
func alternatives(v any) []any {
	if fn, arg, ok := intrinsic(v); ok && fn == "Fn::If" {
		args := asList(arg)
		if len(args) == 3 {
			return slices.Concat(alternatives(args[1]), alternatives(args[2]))
		}
	}
	if isNoValue(v) {
		return nil
	}
	return []any{v}
}
