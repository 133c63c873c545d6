package admin

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"slices"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// The operations of the audit trail: every admin write, one record each.
const (
	OpCreate    = "create"     // PUT /tenants/{id} without If-Match
	OpReplace   = "replace"    // PUT /tenants/{id} with If-Match
	OpPatch     = "patch"      // PATCH /tenants/{id}
	OpDelete    = "delete"     // DELETE /tenants/{id}
	OpKeyIssue  = "key.issue"  // POST /tenants/{id}/keys
	OpKeyRevoke = "key.revoke" // DELETE /tenants/{id}/keys/{keyId}
	OpKeyPurge  = "key.purge"  // DELETE /tenants/{id}/keys/{keyId}?purge=true
	OpReset     = "reset"      // POST /tenants/{id}/reset
)

// LocalCaller is the caller of a request that carries no API Gateway identity: one
// served by ServeHTTP directly, as `edgelimit dev` does.
const LocalCaller = "local"

// unknownCaller is the caller of an API Gateway event without an IAM identity (the
// deployed admin API requires one).
const unknownCaller = "unknown"

// requestInfo is what the audit trail knows of the request being served.
type requestInfo struct {
	caller, requestID, method string
}

type requestInfoKey struct{}

// withCaller returns ctx carrying the caller of an API Gateway event and the event's
// request id.
func withCaller(ctx context.Context, caller, requestID string) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, requestInfo{caller: cmp.Or(caller, unknownCaller), requestID: requestID})
}

// withRequest returns r with its method recorded for the audit trail, and LocalCaller
// as its caller unless an event gave one.
func withRequest(r *http.Request) *http.Request {
	info := infoOf(r.Context())
	info.method = r.Method
	return r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
}

// infoOf is what ctx carries of the request; LocalCaller is its caller unless an event
// gave one.
func infoOf(ctx context.Context) requestInfo {
	info, ok := ctx.Value(requestInfoKey{}).(requestInfo)
	if !ok {
		info.caller = LocalCaller
	}
	return info
}

// callerV1 is the IAM principal of a REST API request (AWS_IAM authorization): the
// user's ARN, else the caller id, else the account.
func callerV1(ev events.APIGatewayProxyRequest) string {
	id := ev.RequestContext.Identity
	return cmp.Or(id.UserArn, id.Caller, id.User, id.AccountID)
}

// callerV2 is the IAM principal of an HTTP API request (IAM authorization).
func callerV2(ev events.APIGatewayV2HTTPRequest) string {
	if a := ev.RequestContext.Authorizer; a != nil && a.IAM != nil {
		return cmp.Or(a.IAM.UserARN, a.IAM.CallerID, a.IAM.UserID, a.IAM.AccountID)
	}
	return ""
}

// updateOp names the write update makes: a merge patch or a replacement.
func updateOp(ctx context.Context) string {
	if infoOf(ctx).method == http.MethodPatch {
		return OpPatch
	}
	return OpReplace
}

// audit writes the record of a tenant write that succeeded: old is the tenant before
// (the zero Tenant for a create), next after (the zero Tenant for a delete). Only the
// names of the fields that changed are written, never their values.
func (h *Handler) audit(ctx context.Context, op string, old, next tenant.Tenant) {
	h.auditWrite(ctx, op, slog.String("tenant", cmp.Or(next.ID, old.ID)), old.Version, next.Version, public(old), public(next))
}

// auditWrite writes the record of a write of subject (the tenant or plan): its
// versions before and after, and the names of the fields that changed between old and
// next (none for a delete).
func (h *Handler) auditWrite(ctx context.Context, op string, subject slog.Attr, oldVersion, newVersion int64, old, next any) {
	attrs := []slog.Attr{slog.Int64("old_version", oldVersion), slog.Int64("new_version", newVersion)}
	if op != OpDelete && op != OpPlanDelete {
		attrs = append(attrs, slog.Any("changed", changedFields(old, next)))
	}
	h.record(ctx, op, subject, attrs...)
}

// auditKey writes the record of a key write: the key id, never the key or its hash.
// Key records are not part of the tenant: its version does not change.
func (h *Handler) auditKey(ctx context.Context, op, tenantID, keyID string) {
	h.record(ctx, op, slog.String("tenant", tenantID), slog.String("key_id", keyID))
}

// record writes one audit record of op on subject (the tenant or plan written).
func (h *Handler) record(ctx context.Context, op string, subject slog.Attr, attrs ...slog.Attr) {
	info := infoOf(ctx)
	base := []slog.Attr{slog.String("operation", op), subject, slog.String("caller", info.caller)}
	if info.requestID != "" {
		base = append(base, slog.String("request_id", info.requestID))
	}
	h.auditLog.LogAttrs(ctx, slog.LevelInfo, "audit", append(base, attrs...)...)
}

// changedFields lists the JSON fields of a tenant or plan whose values differ between
// old and next (version aside, which every write changes), sorted.
func changedFields(old, next any) []string {
	a, b := fieldsOf(old), fieldsOf(next)
	names := maps.Clone(a) // the fields of either
	maps.Copy(names, b)
	out := []string{}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		if name != "version" && !bytes.Equal(a[name], b[name]) {
			out = append(out, name)
		}
	}
	return out
}

// fieldsOf returns the top-level fields of the JSON document of t, a tenant or plan.
func fieldsOf(t any) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if b, err := json.Marshal(t); err == nil {
		json.Unmarshal(b, &m)
	}
	return m
}
