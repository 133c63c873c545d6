package admin_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// The handler is an http.Handler: create a tenant, then change it under its ETag.
func ExampleHandler() {
	h, _ := admin.New(admin.Config{Tenants: memory.NewTenants(), Counters: memory.NewCounters(memory.CountersConfig{})})
	srv := http.StripPrefix("/admin", h) // as `edgelimit dev` mounts it

	put := httptest.NewRequest("PUT", "/admin/tenants/acme",
		strings.NewReader(`{"rules": [{"algorithm": "fixed_window", "limit": 1000, "period": "day"}], "timezone": "Asia/Kolkata"}`))
	put.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, put)
	fmt.Println(rec.Code, rec.Header().Get("ETag"))

	etag := rec.Header().Get("ETag")
	patch := func() *http.Request {
		r := httptest.NewRequest("PATCH", "/admin/tenants/acme", strings.NewReader(`{"fail_mode": "open"}`))
		r.Header.Set("Content-Type", "application/merge-patch+json")
		r.Header.Set("If-Match", etag)
		return r
	}
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, patch())
	fmt.Println(rec.Code, rec.Header().Get("ETag"))

	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, patch()) // the same If-Match again: the tenant has changed since
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"))
	// Output:
	// 201 "1"
	// 200 "2"
	// 412 application/problem+json
}
