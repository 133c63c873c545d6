package apply

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Change is one write that brings the server to a file: create (+), replace (~) or
// delete (-) one plan or tenant, or revoke one key.
type Change struct {
	// Op is '+', '~' or '-'.
	Op byte
	// Kind is "plan", "tenant" or "key"; ID is the object's id.
	Kind, ID string
	// Fields say what a replace changes: "rules[0].limit 100 -> 200".
	Fields []string
	// Tenant is a key's tenant.
	Tenant string

	method, path, ifMatch string
	body                  []byte
	want                  int // the status of success
}

// String is the change's line of a diff: "~ tenant acme: timezone "UTC" -> "Asia/Kolkata"".
func (ch Change) String() string {
	s := string(ch.Op) + " " + ch.Kind + " " + ch.ID
	if ch.Tenant != "" {
		s += " of tenant " + ch.Tenant
	}
	if len(ch.Fields) > 0 {
		s += ": " + strings.Join(ch.Fields, ", ")
	}
	return s
}

// Diff returns the changes that make have (a server's state, from Read) what want (a
// file, from Parse) says, in the order they can be written: plans created or replaced,
// then tenants, then keys revoked, then plans deleted. Without prune, what want does
// not name is left alone. A file the changes cannot honour (a key that does not exist,
// a plan the server cannot hold, a tenant to replace whose rules do not merge with the
// own rules of one of its keys that have holds) is an error, and no change is returned.
func Diff(want, have *State, prune bool) ([]Change, error) {
	if err := check(want, have, prune); err != nil {
		return nil, err
	}
	var out []Change
	for _, id := range slices.Sorted(maps.Keys(want.Plans)) {
		out = appendPut(out, have, "plan", id, want.Plans[id], have.Plans[id], planBody(want.Plans[id]))
	}
	for _, id := range union(want.Tenants, have.Tenants) {
		w, ok := want.Tenants[id]
		if ok {
			out = appendPut(out, have, "tenant", id, w, have.Tenants[id], []byte(compact(w)))
		} else if prune {
			out = append(out, deletion(have, "tenant", id))
		}
	}
	if err := checkOwnRules(want, have, out); err != nil {
		return nil, err
	}
	out = append(out, keyChanges(want, have, prune)...)
	if prune {
		for _, id := range slices.Sorted(maps.Keys(have.Plans)) {
			if _, ok := want.Plans[id]; !ok {
				out = append(out, deletion(have, "plan", id))
			}
		}
	}
	return out, nil
}

// appendPut appends the PUT that makes the object w (have's old, nil when there is
// none) unless they are equal.
func appendPut(out []Change, have *State, kind, id string, w, old Object, body []byte) []Change {
	ch := Change{Kind: kind, ID: id, method: http.MethodPut, path: "/" + kind + "s/" + url.PathEscape(id), body: body}
	if old == nil {
		ch.Op, ch.want = '+', http.StatusCreated
		return append(out, ch)
	}
	if ch.Fields = diffValues("", old, w, nil); len(ch.Fields) == 0 {
		return out
	}
	ch.Op, ch.want, ch.ifMatch = '~', http.StatusOK, have.etags[ref{kind, id}]
	return append(out, ch)
}

func deletion(have *State, kind, id string) Change {
	return Change{Op: '-', Kind: kind, ID: id, method: http.MethodDelete, path: "/" + kind + "s/" + url.PathEscape(id),
		ifMatch: have.etags[ref{kind, id}], want: http.StatusNoContent}
}

// planBody is the body of PUT /plans/{id}: the plan's rules and routes.
func planBody(p Object) []byte {
	body := Object{"rules": []any{}, "routes": []any{}}
	for _, f := range []string{"rules", "routes"} {
		if v, ok := p[f]; ok {
			body[f] = v
		}
	}
	return []byte(compact(body))
}

// keyChanges revokes the keys want marks revoked and, with prune, the active keys of
// want's tenants that want does not list.
func keyChanges(want, have *State, prune bool) []Change {
	var out []Change
	for _, id := range slices.Sorted(maps.Keys(have.Keys)) {
		h := have.Keys[id]
		w, listed := want.Keys[id]
		_, kept := want.Tenants[h.Tenant]
		if h.Status != KeyActive || listed && w.Status != KeyRevoked || !listed && !(prune && kept) {
			continue
		}
		ch := Change{Op: '~', Kind: "key", ID: id, Tenant: h.Tenant, Fields: []string{`status "active" -> "revoked"`},
			method: http.MethodDelete, path: "/tenants/" + url.PathEscape(h.Tenant) + "/keys/" + url.PathEscape(id), want: http.StatusOK}
		if !listed {
			ch.Op, ch.Fields = '-', []string{"revoked (not in the file)"}
		}
		out = append(out, ch)
	}
	return out
}

// union is the ids of a and b, sorted.
func union(a, b map[string]Object) []string {
	ids := maps.Clone(a)
	maps.Copy(ids, b)
	return slices.Sorted(maps.Keys(ids))
}

// diffValues appends to out one "path old -> new" per leaf where a and b differ.
func diffValues(path string, a, b any, out []string) []string {
	if reflect.DeepEqual(a, b) {
		return out
	}
	am, aMap := a.(map[string]any)
	bm, bMap := b.(map[string]any)
	if aMap && bMap {
		fields := maps.Clone(am)
		maps.Copy(fields, bm)
		for _, k := range slices.SortedFunc(maps.Keys(fields), byFieldOrder) {
			out = diffValues(join(path, k), am[k], bm[k], out)
		}
		return out
	}
	al, aList := a.([]any)
	bl, bList := b.([]any)
	if aList && bList {
		for i := range max(len(al), len(bl)) {
			out = diffValues(path+"["+strconv.Itoa(i)+"]", at(al, i), at(bl, i), out)
		}
		return out
	}
	return append(out, fmt.Sprintf("%s %s -> %s", path, show(a), show(b)))
}

func at(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return nil
}

// join adds field k to a path: .k, or ["k"] when k is not a plain name (ASCII
// letters, digits, '_' and '-').
func join(path, k string) string {
	switch {
	case k == "" || strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "":
		return path + "[" + strconv.Quote(k) + "]"
	case path == "":
		return k
	}
	return path + "." + k
}

// show is a value of a diff line: compact JSON, or (none).
func show(v any) string {
	if v == nil {
		return "(none)"
	}
	return compact(v)
}
