package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// demoKey is the public demo key of examples/tenants.json (tenant demo: a token bucket
// of 10/s with a burst of 20).
const demoKey = "elk_xxh64u27_TBaYVHqi6DTHa-Wklpz1R9d3Wkuf7AXtXmfyjIqsZ24"

// TestExampleWithEvents drives the example's handler with HTTP API events: the demo
// tenant's burst of 20 passes with the rate-limit headers, the 21st gets a 429 with
// Retry-After, and a request without a key gets a 401.
func TestExampleWithEvents(t *testing.T) {
	env := map[string]string{"EDGELIMIT_BACKEND": "memory", "EDGELIMIT_TENANTS_FILE": "../tenants.json"}
	h, err := newHandler(context.Background(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	event := func(key string) events.APIGatewayV2HTTPRequest {
		e := events.APIGatewayV2HTTPRequest{RouteKey: "GET /hello", Headers: map[string]string{"x-api-key": key}}
		e.RequestContext.HTTP.Method = "GET"
		return e
	}
	// The burst of 20 passes; the bucket refills at 10/s in real time here, so allow
	// for a token or two more on a slow machine before the first 429.
	allowed := 0
	var denied events.APIGatewayV2HTTPResponse
	for range 30 {
		resp, err := h(context.Background(), event(demoKey))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == 429 {
			denied = resp
			break
		}
		if resp.StatusCode != 200 || resp.Body != "hello from GET /hello\n" || resp.Headers["X-Ratelimit-Remaining"] == "" {
			t.Fatalf("request %d: %d %q %v", allowed, resp.StatusCode, resp.Body, resp.Headers)
		}
		allowed++
	}
	if allowed < 20 || denied.StatusCode != 429 || denied.Headers["Retry-After"] == "" {
		t.Fatalf("%d allowed, then %d %v: want the burst of 20, then 429 with Retry-After", allowed, denied.StatusCode, denied.Headers)
	}
	if resp, _ := h(context.Background(), event("")); resp.StatusCode != 401 {
		t.Fatalf("no key: %d, want 401", resp.StatusCode)
	}
}

// TestExampleBuilds builds the example as the Lambda runtime wants it.
func TestExampleBuilds(t *testing.T) {
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", filepath.Join(t.TempDir(), "bootstrap"), ".")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}
