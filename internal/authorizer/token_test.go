package authorizer_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// tokenHandler returns a handler on the real clock over a tenant "shop" whose rules
// are a per-ip bucket of 3 and a tenant-wide bucket of 100 an hour, with a route GET
// /pets/{id} of 1 an hour, and two keys of it.
func tokenHandler(t *testing.T) (*authorizer.Handler, [2]string) {
	t.Helper()
	tenants := memory.NewTenants()
	tn, err := tenant.Decode([]byte(`{"id": "shop", "rules": [
		{"name": "per-ip", "algorithm": "token_bucket", "limit": 3, "period": "1h", "scope": "ip"},
		{"name": "hourly", "algorithm": "token_bucket", "limit": 100, "period": "1h"}],
		"routes": [{"method": "GET", "resource": "/pets/{id}", "rules": [{"name": "pet", "algorithm": "token_bucket", "limit": 1, "period": "1h"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := tenants.Create(ctx, tn); err != nil {
		t.Fatal(err)
	}
	var keys [2]string
	for i := range keys {
		key, rec := apikey.Generate("shop", time.Now().UnixMicro())
		if err := tenants.PutKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		keys[i] = key.Reveal()
	}
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), AnonymousTenant: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := authorizer.New(authorizer.Config{Gate: g, LogWriter: io.Discard, Metrics: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return h, keys
}

// tokenEvent is the TOKEN event of a request with token for method and path.
func tokenEvent(token, methodAndPath string) []byte {
	b, _ := json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: token,
		MethodArn: "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/" + methodAndPath})
	return b
}

// Under a TOKEN authorizer, the token is the key, the route is the methodArn's path,
// and an ip-scope rule counts every request on one counter (the address is unknown):
// two keys of one tenant share its 3 requests. The route /pets/{id} matches no TOKEN
// request (its path is /pets/42), so its rule of 1 never applies. An empty token is
// Unauthorized, even though the tenant is the anonymous one: there is no address.
func TestTokenAuthorizer(t *testing.T) {
	h, keys := tokenHandler(t)
	ctx := context.Background()
	steps := []struct {
		key, path, effect string
		remaining         float64
	}{
		{keys[0], "GET/pets/42", "Allow", 2},
		{keys[1], "GET/pets/42", "Allow", 1},
		{" " + keys[0] + " ", "POST/orders", "Allow", 0},
		{keys[1], "GET/hello", "Deny", 0},
	}
	for i, st := range steps {
		out, err := h.Invoke(ctx, tokenEvent(st.key, st.path))
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		var resp events.APIGatewayCustomAuthorizerResponse
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatal(err)
		}
		if effect := resp.PolicyDocument.Statement[0].Effect; effect != st.effect || resp.Context["remaining"] != st.remaining ||
			resp.Context["rule"] != "per-ip" || resp.PolicyDocument.Statement[0].Resource[0] != "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/"+st.path {
			t.Errorf("request %d: %s", i+1, out)
		}
	}
	for _, token := range []string{"", "  "} {
		if _, err := h.Invoke(ctx, tokenEvent(token, "GET/pets/42")); !errors.Is(err, authorizer.ErrUnauthorized) {
			t.Errorf("token %q: %v, want Unauthorized", token, err)
		}
	}
	resp, err := h.Token(ctx, events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: keys[0],
		MethodArn: "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/GET/hello"})
	if err != nil || resp.PolicyDocument.Statement[0].Effect != "Deny" {
		t.Errorf("Token: %+v, %v; want the shared counter's Deny", resp, err)
	}
}
