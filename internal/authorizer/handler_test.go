package authorizer_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

func restEvent(t testing.TB, name string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	t.Helper()
	var ev events.APIGatewayCustomAuthorizerRequestTypeRequest
	if err := json.Unmarshal(readFile(t, eventsDir+"/"+name+".json"), &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func httpEvent(t testing.TB, name string) events.APIGatewayV2CustomAuthorizerV2Request {
	t.Helper()
	var ev events.APIGatewayV2CustomAuthorizerV2Request
	if err := json.Unmarshal(readFile(t, eventsDir+"/"+name+".json"), &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// demo's burst is 5 a second: the 6th request at one instant is denied on this
// request's methodArn only, with retryAfter; 200ms later (one token) it is allowed.
func TestRESTAllowThenDenyThenAllow(t *testing.T) {
	hs := newHarness(t, "", nil)
	ev := restEvent(t, "rest-valid-key")
	for i := range 5 {
		resp, err := hs.h.REST(context.Background(), ev)
		if err != nil || resp.PolicyDocument.Statement[0].Effect != "Allow" || resp.Context["remaining"] != int64(4-i) {
			t.Fatalf("request %d: %+v, %v", i+1, resp, err)
		}
	}
	resp, err := hs.h.REST(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	st := resp.PolicyDocument.Statement[0]
	if st.Effect != "Deny" || len(st.Resource) != 1 || st.Resource[0] != ev.MethodArn || st.Action[0] != "execute-api:Invoke" {
		t.Fatalf("6th: policy %+v, want Deny of %s only", resp.PolicyDocument, ev.MethodArn)
	}
	if resp.Context["retryAfter"] != int64(1) || resp.Context["remaining"] != int64(0) || resp.Context["rule"] != "burst" {
		t.Fatalf("6th: context %v", resp.Context)
	}
	if resp.UsageIdentifierKey != "" {
		t.Fatalf("usageIdentifierKey %q, want none by default", resp.UsageIdentifierKey)
	}
	hs.advance(200 * time.Millisecond)
	if resp, _ := hs.h.REST(context.Background(), ev); resp.PolicyDocument.Statement[0].Effect != "Allow" {
		t.Fatalf("after the retry time: %+v", resp)
	}
}

func TestHTTPSimpleAndIAMDeny(t *testing.T) {
	ev := httpEvent(t, "http-valid-key")
	simple := newHarness(t, authorizer.SimpleResponse, nil)
	iam := newHarness(t, authorizer.IAMResponse, nil)
	for range 5 {
		simple.h.HTTP(context.Background(), ev)
		iam.h.HTTPIAM(context.Background(), ev)
	}
	s, err := simple.h.HTTP(context.Background(), ev)
	if err != nil || s.IsAuthorized || s.Context["retryAfter"] != int64(1) {
		t.Fatalf("simple: %+v, %v", s, err)
	}
	p, err := iam.h.HTTPIAM(context.Background(), ev)
	if err != nil || p.PolicyDocument.Statement[0].Effect != "Deny" || p.PolicyDocument.Statement[0].Resource[0] != ev.RouteArn {
		t.Fatalf("iam: %+v, %v", p, err)
	}
}

func TestUsageIdentifierAPIKey(t *testing.T) {
	hs := newHarness(t, "", nil)
	h, err := authorizer.New(authorizer.Config{Gate: gateOf(t, hs), UsageIdentifier: authorizer.UsageAPIKey, Metrics: hs.metrics,
		Logger: slog.New(slog.NewJSONHandler(hs.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h.REST(context.Background(), restEvent(t, "rest-valid-key"))
	if err != nil || resp.UsageIdentifierKey != demoKey {
		t.Fatalf("usageIdentifierKey %q, %v: want the caller's key", resp.UsageIdentifierKey, err)
	}
}

// failingStore is a counter store that is down.
type failingStore struct{ store.Counters }

func (failingStore) Decide(context.Context, []store.Counter, int64, int64, []limiter.Decision) error {
	return errors.New("connection refused")
}

// A store failure is answered with the tenant's fail mode, never returned as an error.
func TestFailModeReachesTheResponse(t *testing.T) {
	hs := newHarness(t, "", failingStore{memory.NewCounters(memory.CountersConfig{})})
	closed, err := hs.h.REST(context.Background(), restEvent(t, "rest-valid-key"))
	if err != nil || closed.PolicyDocument.Statement[0].Effect != "Deny" || closed.Context["retryAfter"] != int64(1) || closed.Context["failOpen"] != false {
		t.Fatalf("demo fails closed: %+v, %v", closed, err)
	}
	ev := restEvent(t, "rest-valid-key")
	ev.Headers["X-Api-Key"] = partnerKey
	open, err := hs.h.REST(context.Background(), ev)
	if err != nil || open.PolicyDocument.Statement[0].Effect != "Allow" || open.Context["failOpen"] != true || open.Context["tenantId"] != "partner" {
		t.Fatalf("partner fails open: %+v, %v", open, err)
	}
}

// A fail-closed Deny says so, apart from a limit's Deny: failClosed is true, and no
// rule, limit or remaining pretends that the request was counted; its metrics count it
// under FailClosed. A limit's Deny (demo's burst of 5, spent) carries failClosed false.
func TestFailClosedIsMarked(t *testing.T) {
	hs := newHarness(t, "", failingStore{memory.NewCounters(memory.CountersConfig{})})
	closed, err := hs.h.REST(context.Background(), restEvent(t, "rest-valid-key"))
	if err != nil || closed.PolicyDocument.Statement[0].Effect != "Deny" || closed.Context["failClosed"] != true ||
		closed.Context["rule"] != "" || closed.Context["limit"] != int64(0) || closed.Context["remaining"] != int64(0) {
		t.Fatalf("demo fails closed: %+v, %v", closed, err)
	}
	if docs := lines(t, hs.metrics.String()); len(docs) != 1 || docs[0]["FailClosed"] != 1.0 || docs[0]["Denied"] != 1.0 {
		t.Errorf("metrics of a fail-closed answer: %v", docs)
	}

	limited := newHarness(t, "", nil)
	var last events.APIGatewayCustomAuthorizerResponse
	for range 6 {
		if last, err = limited.h.REST(context.Background(), restEvent(t, "rest-valid-key")); err != nil {
			t.Fatal(err)
		}
	}
	if last.PolicyDocument.Statement[0].Effect != "Deny" || last.Context["failClosed"] != false || last.Context["rule"] != "burst" || last.Context["limit"] != int64(5) {
		t.Fatalf("the sixth request within a second, over demo's burst of 5: %+v", last)
	}
}

func TestRefusedEvents(t *testing.T) {
	hs := newHarness(t, "", nil)
	cases := map[string]string{
		"not JSON":        `{`,
		"not an event":    `{"Records": []}`,
		"TOKEN, no arn":   `{"type": "TOKEN", "authorizationToken": "x"}`,
		"no methodArn":    `{"type": "REQUEST", "headers": {}}`,
		"unknown version": `{"version": "3.0", "type": "REQUEST"}`,
		"wrong types":     `{"type": "REQUEST", "methodArn": "arn", "headers": []}`,
	}
	for name, payload := range cases {
		out, err := hs.invoke(t, []byte(payload))
		if err == nil || errors.Is(err, authorizer.ErrUnauthorized) || !strings.HasPrefix(err.Error(), "authorizer: ") {
			t.Errorf("%s: %s, %v; want a descriptive error", name, out, err)
		}
	}
	if _, err := hs.h.REST(context.Background(), events.APIGatewayCustomAuthorizerRequestTypeRequest{Type: "TOKEN"}); !errors.Is(err, authorizer.ErrTokenEvent) {
		t.Errorf("TOKEN given to REST: %v, want ErrTokenEvent", err)
	}
}

// One log line and one EMF document per decision; neither holds the key.
func TestObservability(t *testing.T) {
	hs := newHarness(t, "", nil)
	for _, name := range []string{"rest-valid-key", "rest-unknown-key", "http-anonymous-route"} {
		hs.invoke(t, readFile(t, eventsDir+"/"+name+".json"))
	}
	for _, out := range []string{hs.logs.String(), hs.metrics.String()} {
		if strings.Contains(out, demoKey) || strings.Contains(out, "elk_zz9unkwn_A") {
			t.Fatalf("output holds a key:\n%s", out)
		}
	}
	logs := lines(t, hs.logs.String())
	if len(logs) != 3 || logs[0]["tenant"] != "demo" || logs[0]["allowed"] != true || logs[0]["round_trips"] != 1.0 || logs[2]["round_trips"] != 1.0 || logs[1]["status"] != "unauthorized" {
		t.Fatalf("log lines: %v", logs)
	}
	docs := lines(t, hs.metrics.String())
	if len(docs) != 3 {
		t.Fatalf("%d EMF documents, want 3", len(docs))
	}
	aws := docs[0]["_aws"].(map[string]any)
	dir := aws["CloudWatchMetrics"].([]any)[0].(map[string]any)
	if aws["Timestamp"] != float64(testNow/1000) || dir["Namespace"] != "edgelimit" || docs[0]["TenantId"] != "demo" ||
		docs[0]["Allowed"] != 1.0 || docs[0]["Denied"] != 0.0 || docs[0]["FailOpen"] != 0.0 || docs[0]["FailClosed"] != 0.0 || docs[0]["StoreLatency"] == nil {
		t.Fatalf("EMF document %v", docs[0])
	}
	if len(dir["Metrics"].([]any)) != 6 || docs[1]["TenantId"] != "unknown" || docs[1]["Unauthorized"] != 1.0 || docs[1]["StoreLatency"] != nil {
		t.Fatalf("EMF documents %v", docs)
	}
}

func lines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}
