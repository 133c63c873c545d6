package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/console"
	"github.com/edgelimit/edgelimit/internal/simulate"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const now = 1_780_000_000_250_000 // microseconds: 2026-05-28T20:26:40.25Z

// serve sends one request to the console mounted in front of next.
func serve(t *testing.T, h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return rec
}

// authorize decides one request of key for tenant through a real authorizer.
func authorize(t *testing.T, h *authorizer.Handler, key string) {
	t.Helper()
	ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{Type: "REQUEST", HTTPMethod: "GET", Resource: "/x", Path: "/x",
		MethodArn: "arn:aws:execute-api:local:000000000000:dev/local/GET/x", Headers: map[string]string{"x-api-key": key}}
	if _, err := h.REST(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
}

// Traffic counts what the authorizer's EMF documents say, per tenant and second, and
// serves the window ending at its clock.
func TestTrafficCountsTheAuthorizersDecisions(t *testing.T) {
	ctx := context.Background()
	tenants := memory.NewTenants()
	var keys []string
	for _, id := range []string{"acme", "other"} {
		tn, err := tenant.Decode([]byte(`{"id": "` + id + `", "rules": [{"algorithm": "fixed_window", "limit": 3, "period": "1m"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tenants.Create(ctx, tenant.ApplyCreate(tn)); err != nil {
			t.Fatal(err)
		}
		k, rec := apikey.Generate(id, now)
		if err := tenants.PutKey(ctx, rec); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.Reveal())
	}
	clock := int64(now)
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: memory.NewCounters(memory.CountersConfig{}), Now: func() int64 { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	traffic := console.NewTraffic(func() int64 { return clock })
	auth, err := authorizer.New(authorizer.Config{Gate: g, Metrics: traffic, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 { // 3 allowed, 1 denied
		authorize(t, auth, keys[0])
	}
	clock += 2_000_000
	authorize(t, auth, keys[1])
	h := console.Mount(http.NotFoundHandler(), traffic)
	var body struct {
		Seconds []struct {
			T       int64
			Allowed int64
			Denied  int64
		}
		Totals console.Counts
	}
	rec := serve(t, h, "GET", console.TrafficPath+"?tenant_id=acme&seconds=5", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	if len(body.Seconds) != 5 || body.Seconds[4].T != clock/1_000_000 || body.Seconds[2].Allowed != 3 || body.Seconds[2].Denied != 1 ||
		body.Totals != (console.Counts{Allowed: 3, Denied: 1}) {
		t.Fatalf("acme's traffic %+v", body)
	}
	rec = serve(t, h, "GET", console.TrafficPath+"?seconds=5", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Totals != (console.Counts{Allowed: 4, Denied: 1}) {
		t.Fatalf("every tenant's traffic %s: %v", rec.Body, err)
	}
	clock += console.MaxSeconds * 1_000_000
	if got := traffic.Window("acme", 5, clock); got[4].Counts != (console.Counts{}) {
		t.Fatalf("an old second is still counted: %+v", got)
	}
	for _, target := range []string{"?seconds=0", "?seconds=301", "?seconds=x"} {
		if rec := serve(t, h, "GET", console.TrafficPath+target, ""); rec.Code != 400 || rec.Header().Get("Content-Type") != admin.ProblemContentType {
			t.Errorf("%s: %d %s, want a 400 problem", target, rec.Code, rec.Body)
		}
	}
}

// The simulate endpoint answers what `edgelimit simulate` prints for the same rules
// and trace; bad input is a 422 problem naming the field.
func TestSimulateEndpoint(t *testing.T) {
	h := console.Mount(http.NotFoundHandler(), console.NewTraffic(nil))
	trace := "1700000000.0,a\n1700000000.1,a\n1700000000.2,a\n1700000000.3,b\n1700000001.0,a\n"
	rule := `{"algorithm": "sliding_log", "limit": 2, "period": "1s"}`
	rec := serve(t, h, "POST", console.SimulatePath, `{"rules": [`+rule+`], "trace": `+quote(trace)+`}`)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var got struct {
		Decisions []json.RawMessage
		Allowed   int
		Total     int
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(runSimulate(t, rule, trace)), "\n")
	same := len(got.Decisions) == len(want)-1 && want[len(want)-1] == "allowed "+itoa(got.Allowed)+" of "+itoa(got.Total)
	for i := 0; same && i < len(got.Decisions); i++ {
		var a, b map[string]any
		json.Unmarshal(got.Decisions[i], &a)
		json.Unmarshal([]byte(want[i]), &b)
		same = reflect.DeepEqual(a, b)
	}
	if !same {
		t.Fatalf("the endpoint answered %s\nedgelimit simulate prints\n%s", rec.Body, strings.Join(want, "\n"))
	}
	for body, field := range map[string]string{
		`{"rules": [{"algorithm": "fixed_window", "limit": 0, "period": "1s"}], "trace": "1,a"}`: "rules[0]",
		`{"rules": [], "trace": "1,a"}`:                                       "rules",
		`{"rules": [` + rule + `], "timezone": "Mars/Olympus", "trace": "1"}`: "timezone",
		`{"rules": [` + rule + `], "trace": "2,a\n1,a"}`:                      "trace",
	} {
		rec := serve(t, h, "POST", console.SimulatePath, body)
		var p admin.Problem
		if json.Unmarshal(rec.Body.Bytes(), &p); rec.Code != 422 || p.Field != field || p.Detail == "" {
			t.Errorf("%s: %d %s, want a 422 problem naming %s", body, rec.Code, rec.Body, field)
		}
	}
	if rec := serve(t, h, "GET", console.SimulatePath, ""); rec.Code != 405 || rec.Header().Get("Allow") != "POST" {
		t.Errorf("GET: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
}

func runSimulate(t *testing.T, rule, trace string) string {
	t.Helper()
	r, err := limiter.ParseRule([]byte(rule))
	if err != nil {
		t.Fatal(err)
	}
	set, err := limiter.NewSet([]limiter.Rule{r}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := simulate.ParseTrace(strings.NewReader(trace), set)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := simulate.Run(set, reqs, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
func itoa(n int) string     { b, _ := json.Marshal(n); return string(b) }

// The page is served under /console/ with a policy that lets it load its own files
// only, and none of its files names anything to load from elsewhere; other paths go
// to the gateway behind.
func TestPageIsSelfContained(t *testing.T) {
	gateway := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "gateway "+r.URL.Path) })
	h := console.Mount(gateway, console.NewTraffic(nil))
	rec := serve(t, h, "GET", "/console/", "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `<script src="app.js"`) || !strings.HasPrefix(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
		t.Fatalf("GET /console/: %d %q %s", rec.Code, rec.Header().Get("Content-Security-Policy"), rec.Body)
	}
	if rec := serve(t, h, "GET", "/console", ""); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != console.PagePath {
		t.Errorf("GET /console: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	for _, path := range []string{"/hello", "/admin/tenants"} {
		if rec := serve(t, h, "GET", path, ""); rec.Body.String() != "gateway "+path {
			t.Errorf("GET %s: %q, want the gateway's answer", path, rec.Body)
		}
	}
	external := regexp.MustCompile(`(?i)(src|href|url)\s*[=(]\s*["']?\s*(https?:)?//|@import|fetch\(\s*["']https?:`)
	files := 0
	fs.WalkDir(console.Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, _ := fs.ReadFile(console.Files(), path)
		if m := external.Find(data); m != nil {
			t.Errorf("%s loads from elsewhere: %q", path, m)
		}
		target := console.PagePath + strings.TrimSuffix(path, "index.html")
		if rec := serve(t, h, "GET", target, ""); rec.Code != 200 || rec.Body.String() != string(data) {
			t.Errorf("GET %s: %d", target, rec.Code)
		}
		return nil
	})
	if files != 3 {
		t.Errorf("%d embedded files, want index.html, app.js and style.css", files)
	}
}
