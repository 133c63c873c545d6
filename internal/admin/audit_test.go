package admin_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// newAuditEnv is an env over the memory stores whose audit records go to the buffer.
func newAuditEnv(t *testing.T) (*env, *testenv.Buffer) {
	t.Helper()
	e := &env{t: t, st: stores{memory.NewTenants(), memory.NewCounters(memory.CountersConfig{})}, clock: &clock{}, spec: loadSpec(t)}
	e.clock.Set(t0)
	audit := &testenv.Buffer{}
	h, err := admin.New(admin.Config{Tenants: e.st.tenants, Counters: e.st.counters, Now: e.clock.Now, NewKey: e.nextKey,
		Audit: slog.New(slog.NewJSONHandler(audit, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	return e, audit
}

// auditRecord is one audit line.
type auditRecord struct {
	Msg        string   `json:"msg"`
	Level      string   `json:"level"`
	Operation  string   `json:"operation"`
	Tenant     string   `json:"tenant"`
	Caller     string   `json:"caller"`
	RequestID  string   `json:"request_id"`
	OldVersion *int64   `json:"old_version"`
	NewVersion *int64   `json:"new_version"`
	Changed    []string `json:"changed"`
	KeyID      string   `json:"key_id"`
}

func auditRecords(t *testing.T, out string) []auditRecord {
	t.Helper()
	var recs []auditRecord
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r auditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func versions(old, next int64) [2]*int64 { return [2]*int64{&old, &next} }

// Every admin write logs one audit record (operation, tenant, caller, old and new
// version, the names of the fields that changed, the key id of a key operation); a
// refused write logs none; no record holds a key, its secret or its hash.
func TestAuditTrail(t *testing.T) {
	e, audit := newAuditEnv(t)
	e.create("acme", `{"id": "acme", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"}]}`)
	e.do("PUT", "/tenants/acme", `{"id": "acme", "timezone": "Asia/Tokyo", "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 100, "period": "day"}]}`,
		"If-Match", `"1"`).want(t, http.StatusOK)
	e.do("PATCH", "/tenants/acme", `{"fail_mode": "open", "metadata": {"plan": "gold"}}`,
		"Content-Type", "application/merge-patch+json", "If-Match", `"2"`).want(t, http.StatusOK)
	e.do("PATCH", "/tenants/acme", `{"shadow": true}`, // stale: refused, not audited
		"Content-Type", "application/merge-patch+json", "If-Match", `"1"`).want(t, http.StatusPreconditionFailed)
	revoked, revokedID := e.issueKey("acme")
	e.do("DELETE", "/tenants/acme/keys/"+revokedID, "").want(t, http.StatusOK)
	purged, purgedID := e.issueKey("acme")
	e.do("DELETE", "/tenants/acme/keys/"+purgedID+"?purge=true", "").want(t, http.StatusNoContent)
	e.do("POST", "/tenants/acme/reset", "").want(t, http.StatusOK)
	e.do("DELETE", "/tenants/acme", "", "If-Match", `"4"`).want(t, http.StatusNoContent)

	type want struct {
		op       string
		versions [2]*int64
		changed  []string
		keyID    string
	}
	wants := []want{
		{admin.OpCreate, versions(0, 1), []string{"fail_mode", "id", "rules", "status", "timezone"}, ""},
		{admin.OpReplace, versions(1, 2), []string{"timezone", "zone_changes"}, ""},
		{admin.OpPatch, versions(2, 3), []string{"fail_mode", "metadata"}, ""},
		{admin.OpKeyIssue, [2]*int64{}, nil, revokedID},
		{admin.OpKeyRevoke, [2]*int64{}, nil, revokedID},
		{admin.OpKeyIssue, [2]*int64{}, nil, purgedID},
		{admin.OpKeyPurge, [2]*int64{}, nil, purgedID},
		{admin.OpReset, versions(3, 4), []string{"generation"}, ""},
		{admin.OpDelete, versions(4, 0), nil, ""},
	}
	recs := auditRecords(t, audit.String())
	if len(recs) != len(wants) {
		t.Fatalf("%d audit records, want %d (one per write that succeeded):\n%s", len(recs), len(wants), audit.String())
	}
	for i, w := range wants {
		r := recs[i]
		if r.Msg != "audit" || r.Level != "INFO" || r.Operation != w.op || r.Tenant != "acme" || r.Caller != admin.LocalCaller || r.KeyID != w.keyID {
			t.Errorf("record %d: %+v, want %s of acme by %s (key %q)", i, r, w.op, admin.LocalCaller, w.keyID)
		}
		if !equalVersion(r.OldVersion, w.versions[0]) || !equalVersion(r.NewVersion, w.versions[1]) {
			t.Errorf("record %d (%s): versions %v -> %v, want %v -> %v", i, r.Operation, deref(r.OldVersion), deref(r.NewVersion), deref(w.versions[0]), deref(w.versions[1]))
		}
		if !slices.Equal(r.Changed, w.changed) {
			t.Errorf("record %d (%s): changed %q, want %q", i, r.Operation, r.Changed, w.changed)
		}
	}
	checkNoKeyMaterial(t, audit.String(), revoked, purged)
}

func equalVersion(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func deref(v *int64) any {
	if v == nil {
		return "none"
	}
	return *v
}

// checkNoKeyMaterial fails if out holds any of the keys, their secret parts or their
// SHA-256 hashes.
func checkNoKeyMaterial(t *testing.T, out string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if k == "" {
			t.Fatal("no key was issued")
		}
		// elk_<key id>_<secret>: the secret is base64url, which may hold '_' too.
		secret := strings.SplitN(k, "_", 3)[2]
		for _, material := range []string{k, secret, apikey.Hash(k)} {
			if strings.Contains(out, material) {
				t.Errorf("the audit trail holds key material %q:\n%s", material, out)
			}
		}
	}
}

// Deployed, the caller is the IAM principal API Gateway puts in the request context
// (REST API: identity.userArn; HTTP API: authorizer.iam.userArn), with the event's
// request id; an event without one is "unknown", never "local".
func TestAuditCallerFromAPIGateway(t *testing.T) {
	e, audit := newAuditEnv(t)
	const operator = "arn:aws:iam::123456789012:user/operator"
	v1 := events.APIGatewayProxyRequest{HTTPMethod: "PUT", Resource: "/tenants/{id}", Path: "/tenants/acme",
		PathParameters: map[string]string{"id": "acme"}, Headers: map[string]string{"Content-Type": "application/json"},
		Body: `{"id": "acme", "rules": [{"algorithm": "fixed_window", "limit": 5, "period": "1s"}]}`}
	v1.RequestContext.RequestID = "req-v1"
	v1.RequestContext.Identity.UserArn = operator
	v1.RequestContext.Identity.Caller = "AIDAEXAMPLE"
	if resp, _ := e.h.ServeV1(context.Background(), v1); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT through ServeV1: %d %s", resp.StatusCode, resp.Body)
	}
	const role = "arn:aws:sts::123456789012:assumed-role/deployer/ci"
	v2 := events.APIGatewayV2HTTPRequest{Version: "2.0", RawPath: "/tenants/acme/keys"}
	v2.RequestContext.HTTP.Method = "POST"
	v2.RequestContext.RequestID = "req-v2"
	v2.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: role}}
	resp, _ := e.h.ServeV2(context.Background(), v2)
	var issued struct{ Key string }
	if json.Unmarshal([]byte(resp.Body), &issued); resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST keys through ServeV2: %d %s", resp.StatusCode, resp.Body)
	}
	anonymous := events.APIGatewayProxyRequest{HTTPMethod: "POST", Resource: "/tenants/{id}/reset", Path: "/tenants/acme/reset",
		PathParameters: map[string]string{"id": "acme"}}
	if resp, _ := e.h.ServeV1(context.Background(), anonymous); resp.StatusCode != http.StatusOK {
		t.Fatalf("reset through ServeV1: %d %s", resp.StatusCode, resp.Body)
	}
	recs := auditRecords(t, audit.String())
	want := []struct{ op, caller, requestID string }{
		{admin.OpCreate, operator, "req-v1"}, {admin.OpKeyIssue, role, "req-v2"}, {admin.OpReset, "unknown", ""}}
	if len(recs) != len(want) {
		t.Fatalf("%d audit records, want %d:\n%s", len(recs), len(want), audit.String())
	}
	for i, w := range want {
		if r := recs[i]; r.Operation != w.op || r.Caller != w.caller || r.RequestID != w.requestID {
			t.Errorf("record %d: %+v, want %s by %s in request %q", i, r, w.op, w.caller, w.requestID)
		}
	}
	checkNoKeyMaterial(t, audit.String(), issued.Key)
}
