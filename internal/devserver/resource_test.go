package devserver

import "testing"

// TestResourceMatch: a request's resource is the most specific template that matches
// its path, as API Gateway REST APIs choose it, or its path (ok false).
func TestResourceMatch(t *testing.T) {
	known := newResources([]string{
		"/items/{id}", "/items/{id}", "/items/new", "/items/{id}/parts/{part}", "/items/{id}/{proxy+}",
		"/files/{proxy+}", "/files/{name}", "/files/readme/{x}", "/{type}/{id}/parts/{part}",
		"/bad/{proxy+}/more", "/odd/{}/x", "$default", "/orders",
	})
	tests := []struct {
		name, path, want string // want "" is no match: the path is the resource
	}{
		{"a variable", "/items/42", "/items/{id}"},
		{"a literal resource beats a variable", "/items/new", ""},
		{"a variable takes one segment", "/items/42/parts/7", "/items/{id}/parts/{part}"},
		{"a literal beats a variable at the first segment where they differ", "/items/1/parts/2", "/items/{id}/parts/{part}"},
		{"a variable is the first segment", "/users/1/parts/2", "/{type}/{id}/parts/{part}"},
		{"a greedy variable takes what no other does", "/items/42/a/b", "/items/{id}/{proxy+}"},
		{"a variable beats a greedy one", "/files/a", "/files/{name}"},
		{"a greedy variable takes several segments", "/files/a/b/c", "/files/{proxy+}"},
		{"a literal beats a greedy variable", "/files/readme/1", "/files/readme/{x}"},
		{"the greedy variable where the literal's next segment is missing", "/files/readme/1/2", "/files/{proxy+}"},
		{"an encoded slash stays in its segment", "/items/a%2Fb", "/items/{id}"},
		{"trailing slash: an empty segment, which no variable takes", "/items/42/", ""},
		{"trailing slash after a greedy variable's first segment", "/files/a/", "/files/{proxy+}"},
		{"a greedy variable takes one segment or more", "/files", ""},
		{"a greedy variable's first segment is not empty", "/files/", ""},
		{"empty segment", "/items//parts/7", ""},
		{"empty segment inside a greedy variable's", "/files/a//b", "/files/{proxy+}"},
		{"a greedy variable where no template has the length", "/items/42/parts", "/items/{id}/{proxy+}"},
		{"no match", "/other", ""},
		{"no match at the root", "/", ""},
		{"a literal resource", "/orders", ""},
		{"a greedy variable not last is no template", "/bad/x/more", ""},
		{"an empty name is no variable", "/odd/1/x", ""},
		{"not a path", "orders", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := known.match(tt.path)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("match(%q) = %q, %v; want %q", tt.path, got, ok, tt.want)
			}
		})
	}
}

// TestResourceMatchNone: without templates (no routes, or routes without variables)
// every path is its own resource, as before templates.
func TestResourceMatchNone(t *testing.T) {
	for _, rs := range []resources{{}, newResources(nil), newResources([]string{"/orders", "$default"})} {
		if got, ok := rs.match("/orders"); ok {
			t.Errorf("%+v: match(/orders) = %q, true; want no match", rs, got)
		}
	}
}
