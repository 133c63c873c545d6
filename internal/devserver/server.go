package devserver

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/internal/pending"
	"github.com/edgelimit/edgelimit/internal/request"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// Config configures the gateway. Authorizer and Admin are required.
type Config struct {
	Authorizer *authorizer.Handler
	// Admin serves the admin API, mounted under /admin/.
	Admin http.Handler
	// Upstream receives the allowed requests; nil means the built-in echo. Its
	// responses' X-RateLimit-Settle-Cost header is removed, and a request's reservation
	// is settled through Settle once the exchange is over (the body copied, or the
	// upstream unreachable): at that header's cost, else at the estimate when the
	// request holds a concurrency slot.
	Upstream *url.URL
	// Settle settles reservations (gate.Gate.Settle); nil settles none.
	Settle admin.SettleFunc
	// Logger receives one record per settle; nil means slog.Default().
	Logger *slog.Logger
	// Tenants is the admin API's store, whose tenants' and plans' routes name the
	// resources that requests are given ("/items/{id}" for /items/42, as a deployed
	// REST API sends it). New reads them, and each admin write answered 2xx reads
	// them again. nil means none: every request's resource is its path.
	Tenants store.Tenants
}

// Server is the local gateway; it is an http.Handler.
type Server struct {
	auth   *authorizer.Handler
	admin  http.Handler
	next   http.Handler
	settle admin.SettleFunc
	log    *slog.Logger

	tenants   store.Tenants // nil: no resources
	resources atomic.Pointer[resources]
	reloading sync.Mutex
}

// New returns the gateway of cfg, with the resources of cfg.Tenants' routes read.
func New(cfg Config) (*Server, error) {
	if cfg.Authorizer == nil || cfg.Admin == nil {
		return nil, errors.New("devserver: Config.Authorizer and Config.Admin are required")
	}
	s := &Server{auth: cfg.Authorizer, admin: http.StripPrefix("/admin", cfg.Admin), next: http.HandlerFunc(echo),
		settle: cfg.Settle, log: cmp.Or(cfg.Logger, slog.Default()), tenants: cfg.Tenants}
	if cfg.Upstream != nil {
		s.next = s.proxy(cfg.Upstream)
	}
	s.resources.Store(&resources{})
	if s.tenants != nil {
		if err := s.reload(context.Background()); err != nil {
			return nil, fmt.Errorf("devserver: reading the routes' resources: %w", err)
		}
	}
	return s, nil
}

// ServeHTTP routes /admin/ to the admin API and decides every other request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isAdminPath(r.URL.Path) {
		s.serveAdmin(w, r)
		return
	}
	resp, res, err := s.auth.RESTResult(r.Context(), s.event(r))
	switch {
	case errors.Is(err, authorizer.ErrUnauthorized):
		headers.For(res, s.auth.KeyHeader()).Write(w) // res.Status is Unauthorized: 401
	case err != nil:
		headers.Internal().Write(w)
	case !allowed(resp):
		headers.Deny(res).Write(w)
	default:
		headers.For(res, s.auth.KeyHeader()).Write(w) // the rate-limit fields; the upstream answers
		s.next.ServeHTTP(w, withReservation(r.WithContext(context.WithValue(r.Context(), contextKey{}, resp.Context)), pending.New(res)))
	}
}

// event is the REQUEST authorizer event of r, whose resource is the one API Gateway
// would send: the template that matches r's path, or the path.
func (s *Server) event(r *http.Request) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	ev := request.RESTAuthorizerEvent(r, requestID())
	if res, ok := s.resources.Load().match(r.URL.EscapedPath()); ok {
		ev.Resource, ev.RequestContext.ResourcePath = res, res
	}
	return ev
}

// isAdminPath reports whether path is the admin API's: /admin or under /admin/.
func isAdminPath(path string) bool {
	return path == "/admin" || strings.HasPrefix(path, "/admin/")
}

func allowed(resp events.APIGatewayCustomAuthorizerResponse) bool {
	sts := resp.PolicyDocument.Statement
	return len(sts) > 0 && !slices.ContainsFunc(sts, func(st events.IAMPolicyStatement) bool { return st.Effect != "Allow" })
}

// contextKey carries the authorizer's context to the echo.
type contextKey struct{}

// echo answers an allowed request with what the gateway saw and decided.
func echo(w http.ResponseWriter, r *http.Request) {
	decision, _ := r.Context().Value(contextKey{}).(map[string]any)
	writeJSON(w, http.StatusOK, map[string]any{"method": r.Method, "path": r.URL.Path, "authorizer": decision})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

func requestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
