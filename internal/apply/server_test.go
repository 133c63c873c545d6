package apply_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/apply"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// server is the real admin handler on the memory store, plans included, under /admin
// as edgelimit dev serves it. It counts the
// requests that may write (every method but GET), and runs beforeWrite, when set,
// before passing one on.
type server struct {
	*httptest.Server
	admin       http.Handler
	tenants     *memory.Tenants
	writes      atomic.Int64
	mu          sync.Mutex
	beforeWrite func(r *http.Request)
	noPlans     bool // answer 404 on the plan routes, as an admin API before plans
}

func newServer(t *testing.T) *server {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &server{tenants: memory.NewTenants()}
	h, err := admin.New(admin.Config{Tenants: s.tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Logger: quiet, Audit: quiet,
		Now: func() int64 { return limiter.Micros(time.Now()) }})
	if err != nil {
		t.Fatal(err)
	}
	s.admin = h
	s.Server = httptest.NewServer(http.StripPrefix("/admin", http.HandlerFunc(s.serve)))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.writes.Add(1)
		s.mu.Lock()
		hook := s.beforeWrite
		s.mu.Unlock()
		if hook != nil {
			hook(r)
		}
	}
	s.route(w, r)
}

// route passes r to the admin handler, or answers 404 on the plan routes with noPlans.
func (s *server) route(w http.ResponseWriter, r *http.Request) {
	if s.noPlans && (r.URL.Path == "/plans" || strings.HasPrefix(r.URL.Path, "/plans/")) {
		http.NotFound(w, r)
		return
	}
	s.admin.ServeHTTP(w, r)
}

// call sends one request to the handlers directly, neither counted nor hooked: the
// test's own reads and writes.
func (s *server) call(t *testing.T, method, path, ifMatch, body string) int {
	t.Helper()
	code, _ := s.send(t, method, path, ifMatch, body)
	return code
}

// send is call, with the answer's body.
func (s *server) send(t *testing.T, method, path, ifMatch, body string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
		if method == http.MethodPatch {
			r.Header.Set("Content-Type", "application/merge-patch+json")
		}
	}
	if ifMatch != "" {
		r.Header.Set("If-Match", ifMatch)
	}
	w := httptest.NewRecorder()
	s.route(w, r)
	return w.Code, w.Body.String()
}

// putTenant creates a tenant through the admin handler.
func (s *server) putTenant(t *testing.T, body string) {
	t.Helper()
	if code, answer := s.send(t, http.MethodPut, "/tenants/"+idOf(t, body), "", body); code != http.StatusCreated {
		t.Fatalf("PUT tenant %s: %d %s", body, code, answer)
	}
}

// putKey stores a key of tenant with the given id, as POST /tenants/{id}/keys would.
func (s *server) putKey(t *testing.T, tenantID, keyID string) {
	t.Helper()
	k, err := apikey.Parse("elk_" + keyID + "_" + strings.Repeat("A", 43))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.tenants.PutKey(t.Context(), apikey.NewRecord(k, tenantID, limiter.Micros(time.Now()))); err != nil {
		t.Fatal(err)
	}
}

// client is a Client of the server's admin API, at its root URL as a user of
// edgelimit dev would give it (the client adds /admin).
func (s *server) client(t *testing.T) *apply.Client {
	t.Helper()
	c, err := apply.NewClient(context.Background(), s.URL, apply.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func idOf(t *testing.T, body string) string {
	t.Helper()
	var v struct{ ID string }
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.ID == "" {
		t.Fatalf("no id in %s", body)
	}
	return v.ID
}

// get reads path from the handlers (not counted) and returns its body, without
// spaces.
func (s *server) get(t *testing.T, path string) string {
	t.Helper()
	w := httptest.NewRecorder()
	s.route(w, httptest.NewRequest(http.MethodGet, path, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, w.Code)
	}
	return strings.NewReplacer(" ", "", "\n", "").Replace(w.Body.String())
}
