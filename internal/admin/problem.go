package admin

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// ProblemTypeBase starts the type URI of every problem this API answers with; the
// slug after it names the problem (see Problem) and is a heading of docs/problems.md,
// so that the URI opens the problem's explanation.
const ProblemTypeBase = "https://github.com/edgelimit/edgelimit/blob/main/docs/problems.md#"

// ProblemContentType is the media type of error responses (RFC 9457).
const ProblemContentType = "application/problem+json"

// Problem is an RFC 9457 problem detail, the body of every error response. Type is
// ProblemTypeBase followed by one of the slugs of the problem* constants; Field names
// what was wrong, as a path into the request body ("routes[1].rules[0].limit"), a
// query parameter ("limit") or a header ("If-Match"); Value is the offending value as
// written, when it helps.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	Field    string `json:"field,omitempty"`
	Value    string `json:"value,omitempty"`
}

// The problem slugs, each with one HTTP status.
const (
	problemInvalidJSON          = "invalid-json"           // 400: the body is not one JSON value
	problemInvalidParameter     = "invalid-parameter"      // 400: a query parameter or header
	problemForbidden            = "forbidden"              // 403: edgelimit dev refused the Host or Origin
	problemNotFound             = "not-found"              // 404: no such tenant, key or route
	problemMethodNotAllowed     = "method-not-allowed"     // 405
	problemExists               = "already-exists"         // 409: PUT without If-Match on an existing tenant or plan
	problemTooManyKeys          = "too-many-keys"          // 409
	problemPlanInUse            = "plan-in-use"            // 409: DELETE of a plan that tenants name
	problemRulesChanged         = "rules-changed"          // 409: a reservation of an earlier version
	problemReservationExpired   = "reservation-expired"    // 410
	problemPreconditionFailed   = "precondition-failed"    // 412: If-Match does not match
	problemTooLarge             = "body-too-large"         // 413
	problemUnsupportedMediaType = "unsupported-media-type" // 415
	problemInvalidField         = "invalid-field"          // 422: a field of the body
	problemPreconditionRequired = "precondition-required"  // 428: If-Match is missing
	problemInternal             = "internal"               // 500
	problemUnavailable          = "store-unavailable"      // 503: a store failed
)

// problems holds the HTTP status and the title of each slug.
var problems = map[string]struct {
	status int
	title  string
}{
	problemInvalidJSON:          {400, "The request body is not valid JSON"},
	problemInvalidParameter:     {400, "Invalid request parameter"},
	problemForbidden:            {403, "Not this server's host or origin"},
	problemNotFound:             {404, "Not found"},
	problemMethodNotAllowed:     {405, "Method not allowed"},
	problemExists:               {409, "The tenant or plan already exists"},
	problemTooManyKeys:          {409, "The tenant has too many keys"},
	problemPlanInUse:            {409, "The plan is in use"},
	problemRulesChanged:         {409, "The tenant changed since the reservation"},
	problemReservationExpired:   {410, "The reservation expired"},
	problemPreconditionFailed:   {412, "The tenant or plan has changed"},
	problemTooLarge:             {413, "The request body is too large"},
	problemUnsupportedMediaType: {415, "Unsupported content type"},
	problemInvalidField:         {422, "Invalid field"},
	problemPreconditionRequired: {428, "If-Match is required"},
	problemInternal:             {500, "Internal error"},
	problemUnavailable:          {503, "A store is unavailable"},
}

// apiError is an error that becomes a Problem: handlers return it and ServeHTTP writes
// it. header holds extra response headers (Allow, Accept-Patch).
type apiError struct {
	slug, detail, field, value string
	header                     http.Header
	cause                      error // logged for 5xx, never sent
}

func (e *apiError) Error() string { return e.slug + ": " + e.detail }

func newError(slug, detail string) *apiError { return &apiError{slug: slug, detail: detail} }

// fieldError returns a 422 naming field.
func fieldError(field, value, reason string) *apiError {
	return &apiError{slug: problemInvalidField, field: field, value: value, detail: reason}
}

// paramError returns a 400 naming a query parameter or header, and its value when it
// helps.
func paramError(field, value, detail string) *apiError {
	return &apiError{slug: problemInvalidParameter, field: field, value: value, detail: detail}
}

// fromValidation turns a decoding or validation error of a tenant into an apiError: a
// *limiter.FieldError names its field (422), tenant.ErrSyntax is malformed JSON (400).
func fromValidation(err error) *apiError {
	if fe, ok := errors.AsType[*limiter.FieldError](err); ok {
		return fieldError(fe.Field, fe.Value, fe.Reason)
	}
	if errors.Is(err, tenant.ErrSyntax) {
		return newError(problemInvalidJSON, err.Error())
	}
	return nil
}

// problemOf returns the Problem for e, answering the request at path.
func problemOf(e *apiError, path string) Problem {
	return Problem{
		Type: ProblemTypeBase + e.slug, Title: problems[e.slug].title, Status: problems[e.slug].status,
		Detail: e.detail, Instance: path, Field: e.field, Value: e.value,
	}
}

// writeProblem writes e as application/problem+json.
func writeProblem(w http.ResponseWriter, e *apiError, path string) {
	p := problemOf(e, path)
	for name, values := range e.header {
		w.Header()[name] = values
	}
	body, _ := json.Marshal(p) // a Problem always marshals
	w.Header().Set("Content-Type", ProblemContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	w.Write(body)
}

// WriteProblem answers r with the problem of slug (a heading of docs/problems.md, such
// as "invalid-field"), with the title and status the admin API gives it, naming field
// when not empty: the one place that builds problems, for the endpoints that `edgelimit
// dev` serves beside the API too. An unknown slug is answered as "internal" (500).
func WriteProblem(w http.ResponseWriter, r *http.Request, slug, field, detail string) {
	if _, ok := problems[slug]; !ok {
		slug = problemInternal
	}
	writeProblem(w, &apiError{slug: slug, field: field, detail: detail}, r.URL.Path)
}
