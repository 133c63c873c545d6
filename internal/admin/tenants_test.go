package admin_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const acme = `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"}], "timezone": "Asia/Tokyo"}`

func TestTenantLifecycle(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		var list struct {
			Tenants []tenant.Tenant `json:"tenants"`
			Next    *string         `json:"next_page_token"`
		}
		e.do("GET", "/tenants", "").want(t, 200).json(t, &list)
		if len(list.Tenants) != 0 || list.Next != nil {
			t.Fatalf("empty store lists %+v", list)
		}
		r := e.do("PUT", "/tenants/acme", acme).want(t, http.StatusCreated)
		created := r.tenant(t)
		if r.header.Get("ETag") != `"1"` || created.ID != "acme" || created.Version != 1 || created.Generation != 0 ||
			created.FailMode != tenant.FailClosed || created.Status != tenant.StatusActive || created.Rules[0].Name != "daily" {
			t.Fatalf("created %+v, ETag %s", created, r.header.Get("ETag"))
		}
		e.do("PUT", "/tenants/acme", acme).problem(t, http.StatusConflict, "already-exists", "")
		replaceTenant(t, e)
		patchTenant(t, e)
		deleteTenant(t, e)
	})
}

// replaceTenant replaces acme (version 1) with the version, then with a stale one, then
// with "*", then with a list of tags: version 4.
func replaceTenant(t *testing.T, e *env) {
	r := e.do("GET", "/tenants/acme", "").want(t, 200)
	if r.header.Get("ETag") != `"1"` || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET headers %v", r.header)
	}
	// A GET body sent back as it is (version, generation and all) is a valid PUT body.
	replaced := strings.Replace(string(r.body), `"fail_mode":"closed"`, `"fail_mode":"open"`, 1)
	r = e.do("PUT", "/tenants/acme", replaced, "If-Match", `"1"`).want(t, 200)
	if tn := r.tenant(t); tn.Version != 2 || tn.FailMode != tenant.FailOpen || r.header.Get("ETag") != `"2"` {
		t.Fatalf("replaced %+v", tn)
	}
	e.do("PUT", "/tenants/acme", acme, "If-Match", `"1"`).problem(t, http.StatusPreconditionFailed, "precondition-failed", "If-Match")
	r = e.do("PUT", "/tenants/acme", acme, "If-Match", `*`).want(t, 200)
	if tn := r.tenant(t); tn.Version != 3 || tn.FailMode != tenant.FailClosed {
		t.Fatalf("replaced with *: %+v", tn)
	}
	open := strings.Replace(acme, `"timezone"`, `"fail_mode": "open", "timezone"`, 1)
	e.do("PUT", "/tenants/acme", open, "If-Match", `"7", "3"`).want(t, 200) // a list matches any of its tags
}

// patchTenant merges into acme (version 4): members merge, null removes.
func patchTenant(t *testing.T, e *env) {
	r := e.do("PATCH", "/tenants/acme", `{"metadata": {"plan": "pro", "team": "a"}, "shadow": true}`,
		"Content-Type", patchType, "If-Match", `"4"`).want(t, 200)
	if tn := r.tenant(t); tn.Version != 5 || !tn.Shadow || tn.Metadata["plan"] != "pro" || tn.Rules[0].Name != "daily" || tn.Timezone != "Asia/Tokyo" {
		t.Fatalf("patched %+v", tn)
	}
	r = e.do("PATCH", "/tenants/acme", `{"metadata": {"plan": null}, "shadow": null}`,
		"Content-Type", patchType, "If-Match", `"5"`).want(t, 200)
	if tn := r.tenant(t); tn.Shadow || len(tn.Metadata) != 1 || tn.Metadata["team"] != "a" {
		t.Fatalf("patched with nulls %+v", tn)
	}
}

// deleteTenant deletes acme (version 6) under If-Match.
func deleteTenant(t *testing.T, e *env) {
	e.do("DELETE", "/tenants/acme", "").problem(t, http.StatusPreconditionRequired, "precondition-required", "If-Match")
	e.do("DELETE", "/tenants/acme", "", "If-Match", `"5"`).problem(t, http.StatusPreconditionFailed, "precondition-failed", "If-Match")
	r := e.do("DELETE", "/tenants/acme", "", "If-Match", `"6"`).want(t, http.StatusNoContent)
	if len(r.body) != 0 {
		t.Errorf("204 with a body: %s", r.body)
	}
	e.do("GET", "/tenants/acme", "").problem(t, http.StatusNotFound, "not-found", "")
	e.do("PUT", "/tenants/acme", acme, "If-Match", `*`).problem(t, http.StatusNotFound, "not-found", "")
}

// A write that changes nothing writes nothing: the answer is the tenant, 200, with its
// version and ETag as they were (before, every PUT or PATCH bumped the version, so a
// client re-applying its config invalidated every other client's ETag).
func TestWriteThatChangesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", acme)
		same := []struct {
			method, body string
			headers      []string
		}{
			{"PATCH", `{}`, []string{"Content-Type", patchType, "If-Match", `"1"`}},
			{"PATCH", `{"shadow": false, "timezone": "Asia/Tokyo"}`, []string{"Content-Type", patchType, "If-Match", `"1"`}},
			{"PUT", acme, []string{"If-Match", `"1"`}},
			{"PUT", acme, []string{"If-Match", `*`}},
		}
		for _, w := range same {
			r := e.do(w.method, "/tenants/acme", w.body, w.headers...).want(t, 200)
			if tn := r.tenant(t); tn.Version != 1 || r.header.Get("ETag") != `"1"` {
				t.Fatalf("%s %s: version %d, ETag %s: want 1, unchanged", w.method, w.body, tn.Version, r.header.Get("ETag"))
			}
		}
		if r := e.do("GET", "/tenants/acme", "").want(t, 200); r.header.Get("ETag") != `"1"` {
			t.Fatalf("stored ETag %s after writes that changed nothing, want \"1\"", r.header.Get("ETag"))
		}
		r := e.do("PATCH", "/tenants/acme", `{"shadow": true}`, "Content-Type", patchType, "If-Match", `"1"`).want(t, 200)
		if r.header.Get("ETag") != `"2"` {
			t.Fatalf("a real change: ETag %s, want \"2\"", r.header.Get("ETag"))
		}
	})
}

// If-Match on a tenant that does not exist is 404 (there is no tenant to compare
// with), whichever method and tag; before, PUT answered 412.
func TestIfMatchOnNoTenant(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for _, tag := range []string{`"1"`, `*`} {
			e.do("PUT", "/tenants/nobody", acme, "If-Match", tag).problem(t, http.StatusNotFound, "not-found", "")
			e.do("PATCH", "/tenants/nobody", `{"shadow": true}`, "Content-Type", patchType, "If-Match", tag).problem(t, http.StatusNotFound, "not-found", "")
			e.do("DELETE", "/tenants/nobody", "", "If-Match", tag).problem(t, http.StatusNotFound, "not-found", "")
			e.do("POST", "/tenants/nobody/reset", "", "If-Match", tag).problem(t, http.StatusNotFound, "not-found", "")
		}
	})
}

func TestListPages(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		var want []string
		for i := range 7 {
			id := fmt.Sprintf("t%02d", i)
			e.create(id, acme)
			want = append(want, id)
		}
		var got []string
		token := ""
		for page := 0; ; page++ {
			if page > 10 {
				t.Fatal("pages never end")
			}
			path := "/tenants?limit=3"
			if token != "" {
				path += "&page_token=" + token
			}
			var list struct {
				Tenants []tenant.Tenant `json:"tenants"`
				Next    *string         `json:"next_page_token"`
			}
			e.do("GET", path, "").want(t, 200).json(t, &list)
			if len(list.Tenants) > 3 {
				t.Fatalf("a page of %d", len(list.Tenants))
			}
			for _, tn := range list.Tenants {
				got = append(got, tn.ID)
			}
			if list.Next == nil {
				break
			}
			token = *list.Next
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("listed %v, want %v", got, want)
		}
	})
}

func TestDefaultRules(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	h, err := newHandlerWithDefaults(e)
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	tn := e.create("acme", `{"timezone": "UTC"}`)
	if len(tn.Rules) != 1 || tn.Rules[0].Name != "default" {
		t.Fatalf("rules %+v", tn.Rules)
	}
	r := e.do("PATCH", "/tenants/acme", `{"rules": [{"algorithm": "token_bucket", "limit": 5, "period": "1s"}]}`,
		"Content-Type", "application/merge-patch+json", "If-Match", `"1"`).want(t, 200)
	if got := r.tenant(t).Rules; got[0].Name != "token_bucket" {
		t.Fatalf("patched rules %+v", got)
	}
	r = e.do("PATCH", "/tenants/acme", `{"rules": null}`, "Content-Type", "application/merge-patch+json", "If-Match", `"2"`).want(t, 200)
	if got := r.tenant(t).Rules; got[0].Name != "default" {
		t.Fatalf("rules after removing them %+v", got)
	}
}

func TestReset(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		e.create("acme", `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 2, "period": "day"}]}`)
		raw, keyID := e.issueKey("acme")
		g := e.gate(-1, "")
		for range 2 {
			e.check(g, raw, "GET", "/x")
		}
		if res := e.check(g, raw, "GET", "/x"); res.Decision.Allowed {
			t.Fatal("a third request allowed")
		}
		if u := e.usage("acme", keyID); u.Rules[0].Used != 2 || u.Generation != 0 {
			t.Fatalf("usage before the reset %+v", u)
		}
		e.do("POST", "/tenants/acme/reset", "", "If-Match", `"7"`).problem(t, http.StatusPreconditionFailed, "precondition-failed", "If-Match")
		r := e.do("POST", "/tenants/acme/reset", "").want(t, 200)
		if tn := r.tenant(t); tn.Generation != 1 || tn.Version != 2 || r.header.Get("ETag") != `"2"` {
			t.Fatalf("reset %+v", tn)
		}
		if u := e.usage("acme", keyID); u.Rules[0].Used != 0 || u.Rules[0].Remaining != 2 || u.Generation != 1 {
			t.Fatalf("usage after the reset %+v", u)
		}
		if res := e.check(g, raw, "GET", "/x"); !res.Decision.Allowed {
			t.Fatalf("denied after the reset: %+v", res)
		}
		r = e.do("POST", "/tenants/acme/reset", "{}", "If-Match", `"2"`).want(t, 200)
		if tn := r.tenant(t); tn.Generation != 2 {
			t.Fatalf("second reset %+v", tn)
		}
	})
}

func newHandlerWithDefaults(e *env) (*admin.Handler, error) {
	rule, err := limiter.ParseRule([]byte(`{"name": "default", "algorithm": "fixed_window", "limit": 1000, "period": "day"}`))
	if err != nil {
		return nil, err
	}
	return admin.New(admin.Config{Tenants: e.st.tenants, Counters: e.st.counters, Now: e.clock.Now, DefaultRules: []limiter.Rule{rule}})
}
