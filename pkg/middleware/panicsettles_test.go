package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/middleware"
)

// TestConcurrencySlotFreedWhenHandlerPanics: net/http recovers a handler's panic and
// keeps serving (httputil.ReverseProxy panics with http.ErrAbortHandler whenever the
// client goes away mid-response), so the request is over; its slot must be freed as
// when it returns. The middleware settles after next.ServeHTTP returns, not in a
// defer, so a panicking request keeps its slot for the whole lease (here its cost was
// reported first, and it is still not settled).
func TestConcurrencySlotFreedWhenHandlerPanics(t *testing.T) {
	mw, key := newInflightMiddleware(t)
	h := mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		middleware.SetCost(r.Context(), 1)
		if r.URL.Path == "/abort" {
			panic(http.ErrAbortHandler)
		}
	}))
	serve := func(path string) (code int) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("x-api-key", key)
		rec := httptest.NewRecorder()
		defer func() {
			if p := recover(); p != nil && p != http.ErrAbortHandler {
				panic(p)
			}
			code = rec.Code
		}()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	serve("/abort")
	serve("/abort")
	if code := serve("/hello"); code != http.StatusOK {
		t.Fatalf("after two aborted requests that are over, a request with none in flight (limit 2): %d, want 200", code)
	}
}
