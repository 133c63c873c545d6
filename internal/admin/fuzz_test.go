package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// fuzzOps are the requests that take a body.
var fuzzOps = []struct{ method, path, ifMatch string }{
	{"PUT", "/tenants/acme", `"1"`}, // replace
	{"PUT", "/tenants/new", ""},     // create
	{"PATCH", "/tenants/acme", `"1"`},
	{"POST", "/tenants/acme/keys", ""},
	{"POST", "/tenants/acme/reset", `"1"`},
}

// FuzzAdminBody sends arbitrary bodies and content types to every route that reads a
// body. It must never panic or fail with a 5xx; a refused request gets a problem+json
// answer naming its status and writes nothing; an accepted PUT or PATCH answers with a
// valid tenant, the one stored.
func FuzzAdminBody(f *testing.F) {
	seeds := []struct {
		op          uint8
		contentType string
		body        string
	}{
		{0, "application/json", acme},
		{1, "application/json", `{"id": "new", "rules": [{"algorithm": "sliding_log", "limit": 3, "period": "10s"}], "routes": [{"method": "ANY", "resource": "$default", "rules": [{"algorithm": "leaky_bucket", "limit": 1, "period": "1s", "burst": 2}]}]}`},
		{1, "application/json; charset=UTF-8", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "week"}], "timezone": "Pacific/Kiritimati", "metadata": {"a": "b"}}`},
		{2, "application/merge-patch+json", `{"timezone": "America/Los_Angeles", "metadata": {"plan": null}}`},
		{2, "application/merge-patch+json", `{"routes": [{"method": "GET", "resource": "/x", "rules": [{"algorithm": "token_bucket", "limit": 1e3, "period": "1s"}]}]}`},
		{2, "application/merge-patch+json", `[]`},
		{3, "application/json", `{}`},
		{3, "", ``},
		{4, "application/json", `{"x": 1}`},
		{0, "text/plain", `{"rules": []}`},
		{0, "application/json", `{"rules": [{"algorithm": "fixed_window", "limit": 9007199254740993, "period": "1s"}]}`},
		{1, "application/json", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s"}], "zone_changes": [{"at": -1, "from": "UTC", "to": "UTC"}]}`},
		{2, "application/merge-patch+json", `{"rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s", "name": "\u0000"}]}`},
	}
	for _, s := range seeds {
		f.Add(s.op, s.contentType, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, op uint8, contentType string, body []byte) {
		fuzzOne(t, fuzzOps[int(op)%len(fuzzOps)], contentType, body)
	})
}

func fuzzOne(t *testing.T, op struct{ method, path, ifMatch string }, contentType string, body []byte) {
	ctx := context.Background()
	st := memory.NewTenants()
	if _, err := st.Create(ctx, tenant.Tenant{ID: "acme", Rules: mustTenant(t, acme).Rules, Timezone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	h, err := admin.New(admin.Config{Tenants: st, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return 1_768_046_400_000_000 }})
	if err != nil {
		t.Fatal(err)
	}
	before := dump(t, st)
	req := httptest.NewRequest(op.method, "http://admin.test"+op.path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if op.ifMatch != "" {
		req.Header.Set("If-Match", op.ifMatch)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	switch {
	case rec.Code >= 500:
		t.Fatalf("%s %s: %d %s", op.method, op.path, rec.Code, rec.Body)
	case rec.Code >= 400:
		checkFuzzProblem(t, rec)
		if after := dump(t, st); after != before {
			t.Fatalf("a refused request (%d) wrote:\nbefore %s\nafter  %s", rec.Code, before, after)
		}
	case op.method == "PUT" || op.method == "PATCH":
		answered, err := tenant.Decode(rec.Body.Bytes())
		if err != nil {
			t.Fatalf("the answer is not a valid tenant: %v\n%s", err, rec.Body)
		}
		stored, err := st.Get(ctx, answered.ID)
		stored.CreationID = "" // the API does not show it
		if err != nil || !bytes.Equal(mustJSON(t, stored), mustJSON(t, answered)) {
			t.Fatalf("stored %+v (%v), answered %+v", stored, err, answered)
		}
	}
}

func checkFuzzProblem(t *testing.T, rec *httptest.ResponseRecorder) {
	var p admin.Problem
	if rec.Header().Get("Content-Type") != admin.ProblemContentType || json.Unmarshal(rec.Body.Bytes(), &p) != nil {
		t.Fatalf("%d without a problem: %s", rec.Code, rec.Body)
	}
	if p.Status != rec.Code || !strings.HasPrefix(p.Type, admin.ProblemTypeBase) || p.Title == "" || p.Detail == "" {
		t.Fatalf("problem %+v for %d", p, rec.Code)
	}
	if rec.Code == http.StatusUnprocessableEntity && p.Field == "" && !strings.Contains(p.Detail, "object") {
		t.Fatalf("a 422 that names no field: %+v", p)
	}
}

// dump renders the store's tenants and keys.
func dump(t *testing.T, st store.Tenants) string {
	ts, _, err := st.List(context.Background(), store.MaxListLimit, "")
	if err != nil {
		t.Fatal(err)
	}
	var keys [][]apikey.Record
	for _, tn := range ts {
		k, _ := st.ListKeys(context.Background(), tn.ID)
		keys = append(keys, k)
	}
	return string(mustJSON(t, ts)) + string(mustJSON(t, keys))
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustTenant(t *testing.T, body string) tenant.Tenant {
	tn, err := tenant.Decode([]byte(`{"id": "x", ` + strings.TrimPrefix(strings.TrimSpace(body), "{")))
	if err != nil {
		t.Fatal(err)
	}
	return tn
}
