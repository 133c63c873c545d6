package admin

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// ErrNotProxyEvent is returned by Invoke for an event that is not an API Gateway proxy
// request (REST API payload 1.0 or HTTP API payload 2.0).
var ErrNotProxyEvent = errors.New("admin: not an API Gateway proxy event")

// Invoke answers one Lambda invocation: an API Gateway proxy event of either payload
// version (2.0 when its "version" says so, else 1.0), answered in the same version.
// It is what functions/admin passes to lambda.Start. Errors are for events that are
// not proxy requests; every HTTP-level failure is an answer.
func (h *Handler) Invoke(ctx context.Context, event json.RawMessage) (json.RawMessage, error) {
	var probe struct {
		Version    string `json:"version"`
		HTTPMethod string `json:"httpMethod"`
	}
	if err := json.Unmarshal(event, &probe); err != nil {
		return nil, ErrNotProxyEvent
	}
	var resp any
	if probe.Version == "2.0" {
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(event, &ev); err != nil || ev.RequestContext.HTTP.Method == "" {
			return nil, ErrNotProxyEvent
		}
		resp, _ = h.ServeV2(ctx, ev)
	} else {
		var ev events.APIGatewayProxyRequest
		if err := json.Unmarshal(event, &ev); err != nil || ev.HTTPMethod == "" {
			return nil, ErrNotProxyEvent
		}
		resp, _ = h.ServeV1(ctx, ev)
	}
	return json.Marshal(resp)
}

// ServeV1 answers a REST API (payload 1.0) proxy event. The path is rebuilt from the
// event's resource and path parameters, so that a custom domain's base path does not
// reach the routes; the error is always nil.
func (h *Handler) ServeV1(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	q := url.Values{}
	for k, v := range ev.QueryStringParameters {
		q.Set(k, v)
	}
	for k, vs := range ev.MultiValueQueryStringParameters {
		q[k] = vs
	}
	header := http.Header{}
	for k, v := range ev.Headers {
		header.Set(k, v)
	}
	for k, vs := range ev.MultiValueHeaders {
		header[http.CanonicalHeaderKey(k)] = vs
	}
	u := &url.URL{Path: pathV1(ev), RawQuery: q.Encode()}
	ctx = withCaller(ctx, callerV1(ev), ev.RequestContext.RequestID)
	status, hdr, body := h.serveEvent(ctx, ev.HTTPMethod, u, header, ev.Body, ev.IsBase64Encoded)
	return events.APIGatewayProxyResponse{StatusCode: status, Headers: hdr, Body: body}, nil
}

// pathV1 returns the request path of a v1 event: its resource with the path
// parameters filled in, or its path for a greedy ({proxy+}) or unknown resource.
func pathV1(ev events.APIGatewayProxyRequest) string {
	if ev.Resource == "" || strings.Contains(ev.Resource, "+}") {
		return ev.Path
	}
	segs := strings.Split(ev.Resource, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, "{"); ok && strings.HasSuffix(name, "}") {
			v, ok := ev.PathParameters[strings.TrimSuffix(name, "}")]
			if !ok {
				return ev.Path
			}
			segs[i] = v
		}
	}
	return strings.Join(segs, "/")
}

// ServeV2 answers an HTTP API (payload 2.0) proxy event. A named stage's prefix is
// removed from the raw path; the error is always nil.
func (h *Handler) ServeV2(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	raw := ev.RawPath
	if st := ev.RequestContext.Stage; st != "" && st != "$default" {
		if rest, ok := strings.CutPrefix(raw, "/"+st); ok && (rest == "" || rest[0] == '/') {
			raw = rest
		}
	}
	path, err := url.PathUnescape(raw)
	if err != nil {
		path, raw = "/", "" // answered 404 below
	}
	header := http.Header{}
	for k, v := range ev.Headers {
		header.Set(k, v)
	}
	u := &url.URL{Path: path, RawPath: raw, RawQuery: ev.RawQueryString}
	ctx = withCaller(ctx, callerV2(ev), ev.RequestContext.RequestID)
	status, hdr, body := h.serveEvent(ctx, ev.RequestContext.HTTP.Method, u, header, ev.Body, ev.IsBase64Encoded)
	return events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: hdr, Body: body}, nil
}

// serveEvent runs one request through ServeHTTP and returns the response's status,
// headers (several values of one header joined by ", ") and body.
func (h *Handler) serveEvent(ctx context.Context, method string, u *url.URL, header http.Header, body string, b64 bool) (int, map[string]string, string) {
	rec := &recorder{header: http.Header{}}
	data := []byte(body)
	var err error
	if b64 {
		data, err = base64.StdEncoding.DecodeString(body)
	}
	if err != nil {
		writeProblem(rec, newError(problemInvalidJSON, "the event's body is not valid base64 (isBase64Encoded is true)"), u.Path)
	} else {
		h.ServeHTTP(rec, (&http.Request{
			Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: header, Body: io.NopCloser(bytes.NewReader(data)), ContentLength: int64(len(data)),
			Host: header.Get("Host"), RequestURI: u.RequestURI(),
		}).WithContext(ctx))
	}
	out := make(map[string]string, len(rec.header))
	for k, vs := range rec.header {
		out[k] = strings.Join(vs, ", ")
	}
	return cmp.Or(rec.status, http.StatusOK), out, rec.body.String() // 200 when the handler set none
}

// recorder is the http.ResponseWriter of an event: it keeps what the handler writes.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
