package admin_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

func TestServeV1(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	put := events.APIGatewayProxyRequest{
		Resource: "/tenants/{id}", Path: "/admin/tenants/acme", // a custom domain's base path
		HTTPMethod: "PUT", PathParameters: map[string]string{"id": "acme"},
		Headers: map[string]string{"content-type": "application/json"},
		Body:    base64.StdEncoding.EncodeToString([]byte(acme)), IsBase64Encoded: true,
	}
	resp, err := e.h.ServeV1(t.Context(), put)
	if err != nil || resp.StatusCode != 201 || resp.Headers["Etag"] != `"1"` || resp.Headers["Content-Type"] != "application/json" {
		t.Fatalf("PUT: %+v, %v", resp, err)
	}
	if tn, err := tenant.Decode([]byte(resp.Body)); err != nil || tn.ID != "acme" {
		t.Fatalf("body %s: %v", resp.Body, err)
	}
	e.create("beta", acme)

	list := events.APIGatewayProxyRequest{Resource: "/tenants", Path: "/tenants", HTTPMethod: "GET",
		QueryStringParameters:           map[string]string{"limit": "9"},
		MultiValueQueryStringParameters: map[string][]string{"limit": {"1"}}, // wins, as API Gateway fills both
	}
	resp, _ = e.h.ServeV1(t.Context(), list)
	var page struct {
		Tenants []json.RawMessage `json:"tenants"`
		Next    *string           `json:"next_page_token"`
	}
	if err := json.Unmarshal([]byte(resp.Body), &page); err != nil || resp.StatusCode != 200 || len(page.Tenants) != 1 || page.Next == nil {
		t.Fatalf("list: %d %s", resp.StatusCode, resp.Body)
	}

	patch := events.APIGatewayProxyRequest{Resource: "/{proxy+}", Path: "/tenants/acme", HTTPMethod: "PATCH",
		MultiValueHeaders: map[string][]string{"Content-Type": {patchType}, "If-Match": {`"1"`}},
		Body:              `{"shadow": true}`}
	if resp, _ = e.h.ServeV1(t.Context(), patch); resp.StatusCode != 200 || resp.Headers["Etag"] != `"2"` {
		t.Fatalf("patch through a greedy resource: %+v", resp)
	}

	bad := put
	bad.Body = "not base64!"
	resp, _ = e.h.ServeV1(t.Context(), bad)
	if resp.StatusCode != 400 || resp.Headers["Content-Type"] != admin.ProblemContentType {
		t.Fatalf("bad base64: %+v", resp)
	}
}

func TestServeV2(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.create("acme", acme)
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "ANY /tenants/{id}/{proxy+}",
		RawPath: "/v1/tenants/acme/keys", RawQueryString: "",
		Headers: map[string]string{"content-type": "application/json"}, Body: "{}"}
	ev.RequestContext.Stage = "v1"
	ev.RequestContext.HTTP.Method = "POST"
	resp, err := e.h.ServeV2(t.Context(), ev)
	if err != nil || resp.StatusCode != 201 || resp.Headers["Location"] == "" {
		t.Fatalf("POST keys on stage v1: %+v, %v", resp, err)
	}

	ev = events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: "/tenants", RawQueryString: "limit=0"}
	ev.RequestContext.Stage = "$default"
	ev.RequestContext.HTTP.Method = "GET"
	resp, _ = e.h.ServeV2(t.Context(), ev)
	var p admin.Problem
	if err := json.Unmarshal([]byte(resp.Body), &p); err != nil || resp.StatusCode != 400 || p.Field != "limit" {
		t.Fatalf("limit=0: %+v", resp)
	}
}

func TestInvoke(t *testing.T) {
	e := newEnv(t, backendsUnderTest[0].open(t))
	e.create("acme", acme)
	v1 := `{"resource": "/tenants/{id}", "path": "/tenants/acme", "httpMethod": "GET", "pathParameters": {"id": "acme"}}`
	out, err := e.h.Invoke(t.Context(), json.RawMessage(v1))
	var r1 events.APIGatewayProxyResponse
	if err != nil || json.Unmarshal(out, &r1) != nil || r1.StatusCode != 200 || r1.Headers["Etag"] != `"1"` {
		t.Fatalf("v1: %s, %v", out, err)
	}
	v2 := `{"version": "2.0", "routeKey": "$default", "rawPath": "/tenants/acme", "requestContext": {"http": {"method": "DELETE"}, "stage": "$default"}}`
	out, err = e.h.Invoke(t.Context(), json.RawMessage(v2))
	var r2 events.APIGatewayV2HTTPResponse
	if err != nil || json.Unmarshal(out, &r2) != nil || r2.StatusCode != 428 {
		t.Fatalf("v2: %s, %v", out, err)
	}
	for _, ev := range []string{`{}`, `[]`, `{"version": "2.0"}`, `"x"`} {
		if _, err := e.h.Invoke(t.Context(), json.RawMessage(ev)); !errors.Is(err, admin.ErrNotProxyEvent) {
			t.Errorf("%s: %v", ev, err)
		}
	}
}
