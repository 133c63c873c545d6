package devserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/authorizer"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/headers"
)

// Config configures the gateway. Authorizer and Admin are required.
type Config struct {
	Authorizer *authorizer.Handler
	// Admin serves the admin API, mounted under /admin/.
	Admin http.Handler
	// Upstream receives the allowed requests; nil means the built-in echo.
	Upstream *url.URL
}

// Server is the local gateway; it is an http.Handler.
type Server struct {
	auth  *authorizer.Handler
	admin http.Handler
	next  http.Handler
}

// New returns the gateway of cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Authorizer == nil || cfg.Admin == nil {
		return nil, errors.New("devserver: Config.Authorizer and Config.Admin are required")
	}
	s := &Server{auth: cfg.Authorizer, admin: http.StripPrefix("/admin", cfg.Admin), next: http.HandlerFunc(echo)}
	if cfg.Upstream != nil {
		s.next = httputil.NewSingleHostReverseProxy(cfg.Upstream)
	}
	return s, nil
}

// ServeHTTP routes /admin/ to the admin API and decides every other request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/admin" || strings.HasPrefix(r.URL.Path, "/admin/") {
		s.admin.ServeHTTP(w, r)
		return
	}
	resp, res, err := s.auth.RESTResult(r.Context(), event(r))
	switch {
	case errors.Is(err, authorizer.ErrUnauthorized):
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Unauthorized"})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": "Internal server error"})
	case !allowed(resp):
		denied(w, res, resp.Context)
	default:
		if res.Set != nil {
			headers.Write(w.Header(), res.Set, res.Decision, res.Now)
		}
		s.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), contextKey{}, resp.Context)))
	}
}

// event turns a request into the REQUEST authorizer event API Gateway would send.
func event(r *http.Request) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	headers := make(map[string]string, len(r.Header))
	for k, v := range r.Header {
		headers[k] = v[0]
	}
	query := map[string]string{}
	for k, v := range r.URL.Query() {
		query[k] = v[0]
	}
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:                  "REQUEST",
		MethodArn:             "arn:aws:execute-api:local:000000000000:edgelimit-dev/local/" + r.Method + r.URL.Path,
		Resource:              r.URL.Path,
		Path:                  r.URL.Path,
		HTTPMethod:            r.Method,
		Headers:               headers,
		QueryStringParameters: query,
	}
	ev.RequestContext.Identity.SourceIP = ip
	ev.RequestContext.ResourcePath = r.URL.Path
	ev.RequestContext.HTTPMethod = r.Method
	ev.RequestContext.Stage = "local"
	ev.RequestContext.RequestID = requestID()
	return ev
}

func allowed(resp events.APIGatewayCustomAuthorizerResponse) bool {
	for _, st := range resp.PolicyDocument.Statement {
		if st.Effect != "Allow" {
			return false
		}
	}
	return len(resp.PolicyDocument.Statement) > 0
}

// denied answers 429 like the ACCESS_DENIED gateway response of template.yaml: its
// body, with the headers pkg/headers renders (an exact Retry-After, where a deployed
// REST API sends the template's static fallback).
func denied(w http.ResponseWriter, res gate.Result, ctx map[string]any) {
	if res.Set != nil {
		headers.Write(w.Header(), res.Set, res.Decision, res.Now)
	}
	w.Header().Set("Retry-After", strconv.FormatInt(res.RetryAfterSeconds(), 10))
	w.Header().Set("Cache-Control", "no-store")
	body := map[string]any{"message": "Too Many Requests", "requestId": requestID()}
	for _, k := range []string{authorizer.CtxTenantID, authorizer.CtxRule, authorizer.CtxLimit,
		authorizer.CtxRemaining, authorizer.CtxReset, authorizer.CtxRetryAfter} {
		body[k] = fmt.Sprint(ctx[k]) // the template quotes every value
	}
	writeJSON(w, http.StatusTooManyRequests, body)
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
