package admin_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

const specPath = "../../docs/openapi.yaml"

// spec is docs/openapi.yaml, loaded and validated once.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	specOnce sync.Once
	theSpec  *spec
	specErr  error
)

func loadSpec(t *testing.T) *spec {
	t.Helper()
	specOnce.Do(func() { theSpec, specErr = readSpec() })
	if specErr != nil {
		t.Fatalf("%s: %v", specPath, specErr)
	}
	return theSpec
}

func readSpec() (*spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specPath)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, errors.New("the document is not OpenAPI 3.1")
	}
	// Route test requests, which go to http://admin.test, rather than to execute-api.
	doc.Servers = openapi3.Servers{{URL: "http://admin.test"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &spec{doc: doc, router: router}, nil
}

// check validates one exchange against the document (see env.do).
func (s *spec) check(t *testing.T, method, path, body string, headers []string, resp response) {
	t.Helper()
	req := httptest.NewRequest(method, "http://admin.test"+path, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	if body != "" && req.Header.Get("Content-Type") == "" && method != http.MethodPatch {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		// An unknown path (404) or method (405): the answer is a problem all the same.
		if resp.status != http.StatusNotFound && resp.status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s answered %d but is not in %s: %v", method, path, resp.status, specPath, err)
		}
		s.checkProblem(t, resp)
		return
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		// The spec's SigV4 is API Gateway's to check; the handler behind it has none.
		Options: &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if resp.status < 300 || resp.status == 409 || resp.status == 412 || resp.status == 404 && strings.Contains(string(resp.body), "no tenant") {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s %s: the request does not validate against %s: %v", method, path, specPath, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.status,
		Header: resp.header, Options: in.Options}
	out.SetBodyBytes(resp.body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("%s %s: the %d response does not validate against %s: %v\n%s", method, path, resp.status, specPath, err, resp.body)
	}
}

// checkProblem validates a problem body against the Problem schema.
func (s *spec) checkProblem(t *testing.T, resp response) {
	t.Helper()
	if ct := resp.header.Get("Content-Type"); ct != admin.ProblemContentType {
		t.Errorf("Content-Type %q, want %s", ct, admin.ProblemContentType)
	}
	schema := s.doc.Components.Schemas["Problem"].Value
	value, err := openapi3filter.JSONBodyDecoder(io.NopCloser(bytes.NewReader(resp.body)), nil, nil, nil)
	if err == nil {
		err = schema.VisitJSON(value, openapi3.EnableJSONSchema2020())
	}
	if err != nil {
		t.Errorf("the problem %s does not validate: %v", resp.body, err)
	}
}

// TestSpecCoversRoutes checks that every operation the handler serves is in the
// document, and that the document describes nothing else.
func TestSpecCoversRoutes(t *testing.T) {
	s := loadSpec(t)
	h, err := admin.New(admin.Config{Tenants: memory.NewTenants(), Counters: memory.NewCounters(memory.CountersConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	var served, documented []string
	for _, r := range h.Routes() {
		served = append(served, r.Method+" "+r.Pattern)
	}
	for path, item := range s.doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	slices.Sort(served)
	slices.Sort(documented)
	if !slices.Equal(served, documented) {
		t.Errorf("served:\n%s\ndocumented:\n%s", strings.Join(served, "\n"), strings.Join(documented, "\n"))
	}
	if len(served) != 16 {
		t.Errorf("%d operations served, want 16", len(served))
	}
}

// TestSpecIsOpenAPI31 pins the version the document is written in and that kin-openapi
// validates it as such (JSON Schema 2020-12: type arrays, unevaluatedProperties).
func TestSpecIsOpenAPI31(t *testing.T) {
	s := loadSpec(t)
	if s.doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi: %s", s.doc.OpenAPI)
	}
	// The 3.1 keywords are enforced: a NewKey with a stray member fails.
	schema := s.doc.Components.Schemas["NewKey"].Value
	bad := map[string]any{"key": "elk_abcdefgh_" + strings.Repeat("A", 43), "key_id": "abcdefgh",
		"prefix": "elk_abcdefgh_…", "created": "2026-01-01T00:00:00Z", "revoked": false, "hash": "00"}
	if err := schema.VisitJSON(bad, openapi3.EnableJSONSchema2020()); err == nil {
		t.Error("a NewKey with a hash validates: unevaluatedProperties is not enforced")
	}
	delete(bad, "hash")
	if err := schema.VisitJSON(bad, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("a valid NewKey fails: %v", err)
	}
}
