package devserver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/config"
	"github.com/edgelimit/edgelimit/internal/devserver"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// newServer returns the gateway over memory stores, with an admin stand-in that
// answers 299 and records the path it was given.
func newPrefixServer(t *testing.T) (*devserver.Server, *string) {
	t.Helper()
	cfg, stores, err := config.Open(context.Background(), func(string) string { return "" }, config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.New(cfg.GateConfig(stores))
	if err != nil {
		t.Fatal(err)
	}
	auth, err := authorizer.New(authorizer.Config{Gate: g, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	seen := new(string)
	adm := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*seen = r.URL.Path
		w.WriteHeader(299)
	})
	srv, err := devserver.New(devserver.Config{Authorizer: auth, Admin: adm})
	if err != nil {
		t.Fatal(err)
	}
	return srv, seen
}

// TestAdminPrefix: /admin, /admin/ and everything under it reach the admin API, with
// the prefix stripped; other paths, /administrator included, go to the authorizer (401
// without a key).
func TestAdminPrefix(t *testing.T) {
	srv, seen := newPrefixServer(t)
	tests := []struct {
		path      string
		wantCode  int
		wantAdmin string
	}{
		{"/admin/", 299, "/"},
		{"/admin", 299, ""},
		{"/admin/tenants", 299, "/tenants"},
		{"/admin/tenants/demo/keys", 299, "/tenants/demo/keys"},
		{"/administrator", 401, "-"},
		{"/adminx/", 401, "-"},
		{"/hello", 401, "-"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			*seen = "-"
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
			if rec.Code != tt.wantCode || *seen != tt.wantAdmin {
				t.Errorf("GET %s: %d, admin saw %q; want %d, %q", tt.path, rec.Code, *seen, tt.wantCode, tt.wantAdmin)
			}
		})
	}
}
